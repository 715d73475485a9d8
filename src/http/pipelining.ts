import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/*
 * Node parses a pipelined write in one go: the requests it could parse are
 * emitted (and answered in order by Node's own queue), but a parse error
 * further on reaches the clientError handler at once, while those answers
 * are still being computed. RFC 9112 §9.3.2 wants answers in request order,
 * so the Error record for the bad request waits for the earlier ones.
 */

const OWED = Symbol('responses owed');
/** The responses of a connection in request order, from the oldest that may not be closed yet. */
type Owed = ServerResponse[];
type Tracked = { [OWED]?: Owed };

/**
 * Notes a response the connection owes, in request order. No listener: a
 * response is settled once Node has closed it (`destroyed`, set as its
 * 'close' is emitted), and Node closes them in order, so the settled ones
 * are a prefix, dropped here as the next request comes (on a keep-alive
 * connection, the one before it).
 */
export function oweResponse(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket as Duplex & Tracked;
  const owed = socket[OWED];
  if (owed === undefined) {
    socket[OWED] = [res];
    return;
  }
  while (owed.length > 0 && owed[0]?.destroyed === true) owed.shift();
  owed.push(res);
}

/**
 * Runs `write` once every response owed on `socket` to a request received in
 * full is written (at once when there is none). A request still being
 * received is the one the error is about (a timeout, a broken body): its
 * answer is the error itself, so it is not waited for.
 */
export function afterEarlierResponses(socket: Duplex, write: () => void): void {
  const earlier = ((socket as Duplex & Tracked)[OWED] ?? []).filter((res) => !res.destroyed && res.req.complete).map((res) => once(res, 'close'));
  if (earlier.length === 0) write();
  else void Promise.allSettled(earlier).then(write);
}
