import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** A request on a connection whose response is not written yet. */
interface Owed {
  readonly request: IncomingMessage;
  readonly written: Promise<unknown>;
}

/*
 * Node parses a pipelined write in one go: the requests it could parse are
 * emitted (and answered in order by Node's own queue), but a parse error
 * further on reaches the clientError handler at once, while those answers
 * are still being computed. RFC 9112 §9.3.2 wants answers in request order,
 * so the Error record for the bad request waits for the earlier ones.
 */
const owedBySocket = new WeakMap<Duplex, Set<Owed>>();

/** Tracks, per connection, the responses not yet written (one `close` listener per request). */
export function trackResponsesOwed(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let owed = owedBySocket.get(socket);
    if (owed === undefined) {
      owed = new Set();
      owedBySocket.set(socket, owed);
    }
    const set = owed;
    // 'close' follows 'finish' (the response handed to the socket) or an abort.
    const entry: Owed = { request: req, written: once(res, 'close').finally(() => set.delete(entry)) };
    set.add(entry);
  });
}

/**
 * Runs `write` once every response owed on `socket` to a request received in
 * full is written (at once when there is none). A request still being
 * received is the one the error is about (a timeout, a broken body): its
 * answer is the error itself, so it is not waited for.
 */
export function afterEarlierResponses(socket: Duplex, write: () => void): void {
  const earlier = [...(owedBySocket.get(socket) ?? [])].filter((owed) => owed.request.complete).map((owed) => owed.written);
  if (earlier.length === 0) write();
  else void Promise.allSettled(earlier).then(write);
}
