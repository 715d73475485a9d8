import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/*
 * Node parses a pipelined write in one go: the requests it could parse are
 * emitted (and answered in order by Node's own queue), but a parse error
 * further on reaches the clientError handler at once, while those answers
 * are still being computed. RFC 9112 §9.3.2 wants answers in request order,
 * so the Error record for the bad request waits for the earlier ones.
 */

const OWED = Symbol('responses owed');
/** The set of responses owed on a connection, kept on the socket and on each of its responses. */
type Owed = Set<ServerResponse>;
type Tracked = { [OWED]?: Owed };

/** Shared by every response: no closure or promise per request on the hot path. */
function settled(this: ServerResponse & Tracked): void {
  this[OWED]?.delete(this);
}

/** Tracks, per connection, the responses not yet written (one shared `close` listener per response). */
export function trackResponsesOwed(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse & Tracked) => {
    const socket = req.socket as Duplex & Tracked;
    let owed = socket[OWED];
    if (owed === undefined) {
      owed = new Set();
      socket[OWED] = owed;
    }
    owed.add(res);
    res[OWED] = owed;
    // 'close' follows 'finish' (the response handed to the socket) or an abort, once.
    res.on('close', settled);
  });
}

/**
 * Runs `write` once every response owed on `socket` to a request received in
 * full is written (at once when there is none). A request still being
 * received is the one the error is about (a timeout, a broken body): its
 * answer is the error itself, so it is not waited for.
 */
export function afterEarlierResponses(socket: Duplex, write: () => void): void {
  const earlier = [...((socket as Duplex & Tracked)[OWED] ?? [])].filter((res) => res.req.complete).map((res) => once(res, 'close'));
  if (earlier.length === 0) write();
  else void Promise.allSettled(earlier).then(write);
}
