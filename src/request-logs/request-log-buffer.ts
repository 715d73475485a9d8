import type { CapturedRequest } from './request-log-entries.js';
import { textMemo } from '../shared/text-memo.js';

const same = (text: string): string => text;

const INITIAL_CAPACITY = 1024;

/**
 * The captured requests waiting to be written, oldest first, column by
 * column: the numbers in typed arrays, the texts in arrays of their own. A
 * request's capture object dies young; only its texts are kept, and those a
 * busy client repeats (path, user agent, address) once (textMemo). Held as
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
  const method: string[] = [];
  const url: string[] = [];
  const requestId: string[] = [];
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
      requestId.push(request.requestId);
      clientAddress.push(request.clientAddress === undefined ? undefined : addresses(request.clientAddress));
      userAgent.push(request.userAgent === undefined ? undefined : agents(request.userAgent));
      errorBody.push(request.errorBody);
      tail++;
    },
    /** The oldest `count` requests held (fewer if fewer are), as captured; they stay held. */
    peek(count: number): CapturedRequest[] {
      const end = Math.min(head + count, tail);
      const requests: CapturedRequest[] = [];
      for (let slot = head - base; slot < end - base; slot++) {
        const key = keyId[slot] as number;
        requests.push({
          at: at[slot] as number,
          method: method[slot] as string,
          url: url[slot] as string,
          status: status[slot] as number,
          durationMs: durationMs[slot] as number,
          requestId: requestId[slot] as string,
          accountId: accountId[slot] as number,
          keyId: Number.isNaN(key) ? undefined : key,
          clientAddress: clientAddress[slot],
          userAgent: userAgent[slot],
          errorBody: errorBody[slot],
        });
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
