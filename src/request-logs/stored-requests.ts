/**
 * Reading and building StoredRequests (request-logs-repository.ts): the
 * requests of one append, column by column.
 */
import type { NewRequestLog, StoredRequests } from './request-logs-repository.js';
import { packUuid, uuidText } from './request-id-words.js';

/** Request n's id. */
function requestIdOf(requests: StoredRequests, n: number): string {
  return requests.requestId[n] ?? uuidText(requests.uuids, n * 4);
}

/**
 * The requests as objects, for an adapter that writes objects (PostgreSQL).
 * Each millisecond's time is written as text once: a busy host stamps a
 * dozen requests in each (BENCHMARKS.md, tenth session).
 */
export function entriesOf(requests: StoredRequests): NewRequestLog[] {
  const entries: NewRequestLog[] = [];
  let millisecond = Number.NaN;
  let text = '';
  for (let n = 0; n < requests.length; n++) {
    const at = requests.at[n] as number;
    const own = requests.atText?.[n];
    if (own === undefined && at !== millisecond) {
      millisecond = at;
      text = new Date(at).toISOString();
    }
    entries.push(entryOf(requests, n, own ?? text));
  }
  return entries;
}

/** Request n as an object; `at` its time as text. */
function entryOf(requests: StoredRequests, n: number, at: string): NewRequestLog {
  const entry: NewRequestLog = {
    accountId: requests.accountId[n] as number,
    at,
    method: requests.method[n] as string,
    path: requests.path[n] as string,
    status: requests.status[n] as number,
    durationMs: requests.durationMs[n] as number,
    requestId: requestIdOf(requests, n),
  };
  const keyId = requests.keyId[n] as number;
  if (!Number.isNaN(keyId)) entry.keyId = keyId;
  const [clientAddress, userAgent, apiVersion, errorCode, errorBody] = [requests.clientAddress[n], requests.userAgent[n], requests.apiVersion[n], requests.errorCode[n], requests.errorBody[n]];
  if (clientAddress !== undefined) entry.clientAddress = clientAddress;
  if (userAgent !== undefined) entry.userAgent = userAgent;
  if (apiVersion !== undefined) entry.apiVersion = apiVersion;
  if (errorCode !== undefined) entry.errorCode = errorCode;
  if (errorBody !== undefined) entry.errorBody = errorBody;
  return entry;
}

/** A time in the stored form (ISO 8601 UTC to the millisecond, as toISOString writes it): its epoch milliseconds, or NaN. */
function storedTime(at: string): number {
  const ms = Date.parse(at);
  return Number.isNaN(ms) || new Date(ms).toISOString() !== at ? Number.NaN : ms;
}

/**
 * Entries already in their stored form (an entry read back to be written
 * again, a test's) as columns. A time not in the stored form (an older
 * release's row may hold one) is kept as its text (atText), never parsed or
 * moved; a duration or status JSON read back as null (a non-finite one) is
 * NaN, which JSON writes as null again.
 */
export function storedRequests(entries: readonly NewRequestLog[]): StoredRequests {
  const { length } = entries;
  const uuids = new Uint32Array(length * 4);
  const numbers = (read: (entry: NewRequestLog) => number | null | undefined) => Float64Array.from(entries, (entry) => read(entry) ?? Number.NaN);
  const at = numbers((entry) => storedTime(entry.at));
  const atText = entries.map((entry, n) => (Number.isNaN(at[n]) ? entry.at : undefined));
  return {
    length,
    accountId: numbers((entry) => entry.accountId),
    at,
    ...(atText.some((text) => text !== undefined) ? { atText } : {}),
    method: entries.map((entry) => entry.method),
    path: entries.map((entry) => entry.path),
    status: numbers((entry) => entry.status),
    durationMs: numbers((entry) => entry.durationMs),
    keyId: numbers((entry) => entry.keyId),
    clientAddress: entries.map((entry) => entry.clientAddress),
    userAgent: entries.map((entry) => entry.userAgent),
    apiVersion: entries.map((entry) => entry.apiVersion),
    errorCode: entries.map((entry) => entry.errorCode),
    errorBody: entries.map((entry) => entry.errorBody),
    requestId: entries.map((entry, n) => (packUuid(entry.requestId, uuids, n * 4) ? undefined : entry.requestId)),
    uuids,
  };
}
