import { lastOf, textMemo } from '../shared/text-memo.js';
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

/** A power of two, as every capacity after it: a slot is a position's low bits. */
const INITIAL_CAPACITY = 1024;

/**
 * The captured requests waiting to be written, oldest first, column by
 * column: the numbers in typed arrays, the texts in arrays of their own. A
 * request's capture object dies young (the fast lane reuses one); only its
 * texts are kept, and those a busy client repeats (path, user agent,
 * address) once (textMemo); a request id that is a UUID, as ours are, is
 * kept as numbers (packUuid). Held as objects, a second of requests survived
 * the young generation's collections and was promoted to the old one
 * (BENCHMARKS.md, thirteenth session). A flush reads the oldest 2,000 at a
 * time, column by column (peek), writes them, and only then lets them go
 * (release), so that a failed write leaves them in place, ahead of what came
 * since.
 *
 * The columns are rings: the request at absolute position p (the p-th ever
 * captured) is at slot p & mask, so that letting requests go moves nothing.
 * Under steady load the buffer never empties (requests arrive while a flush
 * writes), and moving the held ones back to slot 0 whenever the columns
 * filled cost each request 0.06 µs (BENCHMARKS.md, sixteenth session). Only
 * when every slot is held do the columns double. Positions are absolute, so
 * that a release after the bound dropped some of the same requests
 * (dropOldest) lets go of nothing twice.
 */
export function createCaptureBuffer() {
  let capacity = INITIAL_CAPACITY;
  let mask = capacity - 1;
  let at = new Float64Array(capacity);
  let durationMs = new Float64Array(capacity);
  let status = new Float64Array(capacity);
  let accountId = new Float64Array(capacity);
  // NaN: no key.
  let keyId = new Float64Array(capacity);
  // Four words per request: its id, when it is a UUID (request-id-words.ts; its requestId text is then undefined).
  let uuids = new Uint32Array(capacity * 4);
  const textColumn = <T>(): T[] => new Array<T>(capacity).fill(undefined as T);
  let method = textColumn<string>();
  let url = textColumn<string>();
  let requestId = textColumn<string | undefined>();
  let clientAddress = textColumn<string | undefined>();
  let userAgent = textColumn<string | undefined>();
  let errorBody = textColumn<string | undefined>();
  /** The absolute position of the oldest request held, and of the next one. */
  let head = 0;
  let tail = 0;
  // The first copy of each text is kept.
  const urls = lastOf(textMemo(same));
  const agents = lastOf(textMemo(same));
  const addresses = lastOf(textMemo(same));

  /** Every slot held: the columns doubled, the held requests moved to their slots in the wider ones. */
  function grow(): void {
    const wider = capacity * 2;
    const widerMask = wider - 1;
    const numbers = (old: Float64Array): Float64Array<ArrayBuffer> => {
      const next = new Float64Array(wider);
      for (let p = head; p < tail; p++) next[p & widerMask] = old[p & mask] as number;
      return next;
    };
    const texts = <T>(old: T[]): T[] => {
      const next = new Array<T>(wider).fill(undefined as T);
      for (let p = head; p < tail; p++) next[p & widerMask] = old[p & mask] as T;
      return next;
    };
    at = numbers(at);
    durationMs = numbers(durationMs);
    status = numbers(status);
    accountId = numbers(accountId);
    keyId = numbers(keyId);
    const words = new Uint32Array(wider * 4);
    for (let p = head; p < tail; p++) {
      const from = (p & mask) * 4;
      const to = (p & widerMask) * 4;
      for (let w = 0; w < 4; w++) words[to + w] = uuids[from + w] as number;
    }
    uuids = words;
    method = texts(method);
    url = texts(url);
    requestId = texts(requestId);
    clientAddress = texts(clientAddress);
    userAgent = texts(userAgent);
    errorBody = texts(errorBody);
    capacity = wider;
    mask = widerMask;
  }

  /** The column's values at the held positions [from, end) (end - from ≤ capacity), in order: at most two runs of slots. */
  function runs<C extends { slice(start: number, end: number): C }>(column: C, from: number, end: number, width: number, join: (first: C, second: C) => C): C {
    const start = from & mask;
    const stop = start + (end - from);
    if (stop <= capacity) return column.slice(start * width, stop * width);
    return join(column.slice(start * width, capacity * width), column.slice(0, (stop - capacity) * width));
  }
  const joinNumbers = (first: Float64Array, second: Float64Array): Float64Array => {
    const joined = new Float64Array(first.length + second.length);
    joined.set(first);
    joined.set(second, first.length);
    return joined;
  };
  const joinWords = (first: Uint32Array, second: Uint32Array): Uint32Array => {
    const joined = new Uint32Array(first.length + second.length);
    joined.set(first);
    joined.set(second, first.length);
    return joined;
  };
  const joinTexts = <T>(first: T[], second: T[]): T[] => first.concat(second);

  /** Lets go of every request before absolute position `end`, and of its texts: a ring grown by a burst or an outage keeps no string alive once its request is written. */
  function releaseBefore(end: number): void {
    const until = Math.min(end, tail);
    for (; head < until; head++) {
      const slot = head & mask;
      method[slot] = '';
      url[slot] = '';
      requestId[slot] = undefined;
      clientAddress[slot] = undefined;
      userAgent[slot] = undefined;
      errorBody[slot] = undefined;
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
    /** Copies the request's fields at once: the caller may reuse the object for its next request. */
    push(request: CapturedRequest): void {
      if (tail - head === capacity) grow();
      const slot = tail & mask;
      at[slot] = request.at;
      durationMs[slot] = request.durationMs;
      status[slot] = request.status;
      accountId[slot] = request.accountId;
      keyId[slot] = request.keyId ?? Number.NaN;
      method[slot] = request.method;
      url[slot] = urls(request.url);
      // The id issued last has its words kept (the fast lane captures right after its answer); any other is read from its text.
      const id = request.requestId;
      requestId[slot] = copyIssuedWords(id, uuids, slot * 4) || packUuid(id, uuids, slot * 4) ? undefined : id;
      clientAddress[slot] = request.clientAddress === undefined ? undefined : addresses(request.clientAddress);
      userAgent[slot] = request.userAgent === undefined ? undefined : agents(request.userAgent);
      errorBody[slot] = request.errorBody;
      tail++;
    },
    /** The oldest `count` requests held (fewer if fewer are), as captured, column by column (copies); they stay held. */
    peek(count: number): CapturedColumns {
      const end = Math.min(head + count, tail);
      return {
        length: end - head,
        at: runs(at, head, end, 1, joinNumbers),
        durationMs: runs(durationMs, head, end, 1, joinNumbers),
        status: runs(status, head, end, 1, joinNumbers),
        accountId: runs(accountId, head, end, 1, joinNumbers),
        keyId: runs(keyId, head, end, 1, joinNumbers),
        uuids: runs(uuids, head, end, 4, joinWords),
        method: runs(method, head, end, 1, joinTexts),
        url: runs(url, head, end, 1, joinTexts),
        requestId: runs(requestId, head, end, 1, joinTexts),
        clientAddress: runs(clientAddress, head, end, 1, joinTexts),
        userAgent: runs(userAgent, head, end, 1, joinTexts),
        errorBody: runs(errorBody, head, end, 1, joinTexts),
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
