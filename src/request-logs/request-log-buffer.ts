import { textMemo } from '../shared/text-memo.js';
import { copyIssuedWords, packUuid } from './request-id-words.js';

/**
 * A request as the HTTP layer captures it on its way out: plain fields it
 * already holds, nothing computed. Everything else (the redacted path, the
 * error code) is worked out by createStoredForm when the batch is written,
 * off the request path.
 */
export interface CapturedRequest {
  /** Epoch milliseconds when the request arrived. */
  at: number;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  status: number;
  durationMs: number;
  requestId: string;
  accountId: number;
  keyId: number | undefined;
  clientAddress: string | undefined;
  userAgent: string | undefined;
  /** The body of a non-2xx answer (an Error record), as sent. */
  errorBody: string | undefined;
}

const same = (text: string): string => text;

/**
 * Captured requests column by column, as the buffer holds them (a peek): the
 * n-th value of every column is the n-th request's. keyId is NaN for no key;
 * a request id in randomUUID's form is four words at 4n of `uuids`
 * (request-id-words.ts), its requestId then undefined.
 */
export interface CapturedColumns {
  length: number;
  at: Float64Array;
  durationMs: Float64Array;
  status: Float64Array;
  accountId: Float64Array;
  keyId: Float64Array;
  uuids: Uint32Array;
  method: string[];
  url: string[];
  requestId: (string | undefined)[];
  clientAddress: (string | undefined)[];
  userAgent: (string | undefined)[];
  errorBody: (string | undefined)[];
}

const INITIAL_CAPACITY = 1024;

/**
 * The captured requests waiting to be written, oldest first, column by
 * column: the numbers in typed arrays, the texts in arrays of their own. A
 * request's capture object dies young; only its texts are kept, and those a
 * busy client repeats (path, user agent, address) once (textMemo); a request
 * id that is a UUID, as ours are, is kept as numbers (packUuid). Held as
 * objects, a second of requests survived the young generation's collections
 * and was promoted to the old one (BENCHMARKS.md, thirteenth session). A
 * flush reads the oldest 2,000 at a time, column by column (peek), writes them,
 * and only then lets them go (release), so that a failed write leaves them in
 * place, ahead of what came since.
 *
 * Positions are absolute (the n-th request ever captured), so that a release
 * after the bound dropped some of the same requests (dropOldest) lets go of
 * nothing twice.
 */
export function createCaptureBuffer() {
  let capacity = INITIAL_CAPACITY;
  let at = new Float64Array(capacity);
  let durationMs = new Float64Array(capacity);
  let status = new Float64Array(capacity);
  let accountId = new Float64Array(capacity);
  // NaN: no key.
  let keyId = new Float64Array(capacity);
  // Four words per request: its id, when it is a UUID (request-id-words.ts; its requestId text is then undefined).
  let uuids = new Uint32Array(capacity * 4);
  const method: string[] = [];
  const url: string[] = [];
  const requestId: (string | undefined)[] = [];
  const clientAddress: (string | undefined)[] = [];
  const userAgent: (string | undefined)[] = [];
  const errorBody: (string | undefined)[] = [];
  const texts = [method, url, requestId, clientAddress, userAgent, errorBody];
  /** The absolute position of slot 0, of the oldest request held, and of the next one. */
  let base = 0;
  let head = 0;
  let tail = 0;
  // The first copy of each text is kept.
  const urls = textMemo(same);
  const agents = textMemo(same);
  const addresses = textMemo(same);

  /** Room for one more: the held requests moved to slot 0, then the columns doubled if that was not enough. */
  function makeRoom(): void {
    const offset = head - base;
    if (offset > 0) {
      for (const column of [at, durationMs, status, accountId, keyId]) column.copyWithin(0, offset, tail - base);
      uuids.copyWithin(0, offset * 4, (tail - base) * 4);
      for (const column of texts) column.splice(0, offset);
      base = head;
    }
    if (tail - base < capacity) return;
    capacity *= 2;
    const wider = (old: Float64Array) => {
      const next = new Float64Array(capacity);
      next.set(old);
      return next;
    };
    at = wider(at);
    durationMs = wider(durationMs);
    status = wider(status);
    accountId = wider(accountId);
    keyId = wider(keyId);
    const words = new Uint32Array(capacity * 4);
    words.set(uuids);
    uuids = words;
  }

  /** Lets go of every request before absolute position `end`. */
  function releaseBefore(end: number): void {
    if (end <= head) return;
    head = Math.min(end, tail);
    if (head === tail) {
      // Empty: the columns start again at slot 0, and the texts are let go.
      base = head;
      for (const column of texts) column.length = 0;
    }
  }

  return {
    /** How many requests are held. */
    get size(): number {
      return tail - head;
    },
    /** The absolute position of the oldest request held. */
    get head(): number {
      return head;
    },
    push(request: CapturedRequest): void {
      if (tail - base === capacity) makeRoom();
      const slot = tail - base;
      at[slot] = request.at;
      durationMs[slot] = request.durationMs;
      status[slot] = request.status;
      accountId[slot] = request.accountId;
      keyId[slot] = request.keyId ?? Number.NaN;
      method.push(request.method);
      url.push(urls(request.url));
      // The id issued last has its words kept (the fast lane captures right after its answer); any other is read from its text.
      const id = request.requestId;
      requestId.push(copyIssuedWords(id, uuids, slot * 4) || packUuid(id, uuids, slot * 4) ? undefined : id);
      clientAddress.push(request.clientAddress === undefined ? undefined : addresses(request.clientAddress));
      userAgent.push(request.userAgent === undefined ? undefined : agents(request.userAgent));
      errorBody.push(request.errorBody);
      tail++;
    },
    /** The oldest `count` requests held (fewer if fewer are), as captured, column by column (copies); they stay held. */
    peek(count: number): CapturedColumns {
      const from = head - base;
      const end = Math.min(head + count, tail) - base;
      return {
        length: end - from,
        at: at.slice(from, end),
        durationMs: durationMs.slice(from, end),
        status: status.slice(from, end),
        accountId: accountId.slice(from, end),
        keyId: keyId.slice(from, end),
        uuids: uuids.slice(from * 4, end * 4),
        method: method.slice(from, end),
        url: url.slice(from, end),
        requestId: requestId.slice(from, end),
        clientAddress: clientAddress.slice(from, end),
        userAgent: userAgent.slice(from, end),
        errorBody: errorBody.slice(from, end),
      };
    },
    /** Lets go of the requests a peek at absolute position `from` returned (`count`), once written; those dropped meanwhile are not let go twice. */
    release(from: number, count: number): void {
      releaseBefore(from + count);
    },
    /** Drops the oldest `count` requests (the bound: storage cannot keep up). */
    dropOldest(count: number): void {
      releaseBefore(head + count);
    },
  };
}
