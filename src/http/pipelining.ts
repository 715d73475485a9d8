import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Responses a connection still owes, and what waits for them to be written. */
interface Owed {
  count: number;
  readonly then: (() => void)[];
}

/*
 * Node parses a pipelined write in one go: the requests it could parse are
 * emitted (and answered in order by Node's own queue), but a parse error
 * further on reaches the clientError handler at once, while those answers
 * are still being computed. RFC 9112 §9.3.2 wants answers in request order,
 * so the Error record for the bad request waits for the earlier ones.
 */
const owedBySocket = new WeakMap<Duplex, Owed>();

/** Counts, per connection, the responses not yet written (one `close` listener per request). */
export function trackResponsesOwed(server: Server): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let owed = owedBySocket.get(socket);
    if (owed === undefined) {
      owed = { count: 0, then: [] };
      owedBySocket.set(socket, owed);
    }
    owed.count += 1;
    const entry = owed;
    // 'close' follows 'finish' (the response handed to the socket) or an abort.
    res.once('close', () => {
      entry.count -= 1;
      if (entry.count === 0) for (const run of entry.then.splice(0)) run();
    });
  });
}

/** Runs `write` once every response owed on `socket` before now is written (at once when none is). */
export function afterEarlierResponses(socket: Duplex, write: () => void): void {
  const owed = owedBySocket.get(socket);
  if (owed === undefined || owed.count === 0) write();
  else owed.then.push(write);
}
