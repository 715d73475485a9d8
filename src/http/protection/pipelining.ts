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
/** The responses of a connection queued behind its current one, in request order, from the oldest that may not be closed yet. */
type Owed = ServerResponse[];
/** `_httpMessage` is Node's own: the response the socket is writing now (as its clientError handler reads it). */
type Tracked = { [OWED]?: Owed; _httpMessage?: ServerResponse | null };

/**
 * Notes a response the connection owes. The usual one is the connection's
 * current response (Node gave it the socket at once), readable later as the
 * socket's `_httpMessage`: nothing is kept for it, so it dies young. Only a
 * response queued behind an earlier one (pipelining) is kept, with no
 * listener: a response is settled once Node has closed it (`destroyed`, set
 * as its 'close' is emitted), and Node closes them in order, so the settled
 * ones are a prefix, dropped as the next queued one comes.
 */
export function oweResponse(req: IncomingMessage, res: ServerResponse): void {
  if (res.socket !== null) return;
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
  const { _httpMessage: current, [OWED]: queued = [] } = socket as Duplex & Tracked;
  const owed = new Set(current === undefined || current === null ? queued : [current, ...queued]);
  const earlier = [...owed].filter((res) => !res.destroyed && res.req.complete).map((res) => once(res, 'close'));
  if (earlier.length === 0) write();
  else void Promise.allSettled(earlier).then(write);
}
