import type { CapturedRequest } from './request-log-entries.js';
import { textMemo } from '../shared/text-memo.js';

const same = (text: string): string => text;

/** The value of each hexadecimal digit a UUID holds (lowercase, as randomUUID writes it), by character code; -1 for any other. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) HEX_DIGIT['0123456789abcdef'.charCodeAt(digit)] = digit;

/**
 * A request id in randomUUID()'s form (8-4-4-4-12 lowercase hexadecimal
 * digits) as four 32-bit words at `words[at…]`; false (the words left
 * partly written) for any other id. A request id held as a string until the
 * flush outlived the young generation and was copied, then promoted, by the
 * collector; four numbers in a typed array cost it nothing (BENCHMARKS.md,
 * fourteenth session).
 */
function packUuid(id: string, words: Uint32Array, at: number): boolean {
  if (id.length !== 36 || id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45) return false;
  let word = 0;
  let digits = 0;
  let next = at;
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    const code = id.charCodeAt(i);
    const value = code < 128 ? (HEX_DIGIT[code] as number) : -1;
    if (value < 0) return false;
    word = (word << 4) | value;
    if (++digits === 8) {
      words[next++] = word;
      word = 0;
      digits = 0;
    }
  }
  return true;
}

/** The two hexadecimal digits of each byte: Number's toString(16) took 2 µs per request id (BENCHMARKS.md, fourteenth session). */
const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const pair = (word: number, shift: number): string => HEX_PAIRS[(word >>> shift) & 0xff] as string;
const halfWord = (word: number, shift: number): string => pair(word, shift + 8) + pair(word, shift);

/** The inverse of packUuid. */
function uuidText(words: Uint32Array, at: number): string {
  const [a, b, c, d] = [words[at] as number, words[at + 1] as number, words[at + 2] as number, words[at + 3] as number];
  return `${halfWord(a, 16)}${halfWord(a, 0)}-${halfWord(b, 16)}-${halfWord(b, 0)}-${halfWord(c, 16)}-${halfWord(c, 0)}${halfWord(d, 16)}${halfWord(d, 0)}`;
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
 * flush reads the oldest few hundred as objects (peek), writes them, and only
 * then lets them go (release), so that a failed write leaves them in place,
 * ahead of what came since.
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
  // Four words per request: its id, when it is a UUID (packUuid; its requestId text is then undefined).
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
      requestId.push(packUuid(request.requestId, uuids, slot * 4) ? undefined : request.requestId);
      clientAddress.push(request.clientAddress === undefined ? undefined : addresses(request.clientAddress));
      userAgent.push(request.userAgent === undefined ? undefined : agents(request.userAgent));
      errorBody.push(request.errorBody);
      tail++;
    },
    /**
     * The oldest `count` requests held (fewer if fewer are), each as `as`
     * turns it (the stored form); they stay held. `as` is handed one object,
     * refilled for each request: it must not keep it (an object per request
     * read cost the flush a tenth of a microsecond, BENCHMARKS.md, fifteenth
     * session).
     */
    peek<T>(count: number, as: (request: Readonly<CapturedRequest>) => T): T[] {
      const end = Math.min(head + count, tail);
      const requests: T[] = [];
      const read: CapturedRequest = { at: 0, method: '', url: '', status: 0, durationMs: 0, requestId: '', accountId: 0, keyId: undefined, clientAddress: undefined, userAgent: undefined, errorBody: undefined };
      for (let slot = head - base; slot < end - base; slot++) {
        const key = keyId[slot] as number;
        read.at = at[slot] as number;
        read.method = method[slot] as string;
        read.url = url[slot] as string;
        read.status = status[slot] as number;
        read.durationMs = durationMs[slot] as number;
        read.requestId = requestId[slot] ?? uuidText(uuids, slot * 4);
        read.accountId = accountId[slot] as number;
        read.keyId = Number.isNaN(key) ? undefined : key;
        read.clientAddress = clientAddress[slot];
        read.userAgent = userAgent[slot];
        read.errorBody = errorBody[slot];
        requests.push(as(read));
      }
      return requests;
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
