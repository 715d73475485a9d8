/**
 * Reading and building StoredRequests (request-logs-repository.ts): the
 * requests of one append, column by column.
 */
import type { NewRequestLog, StoredRequests } from './request-logs-repository.js';
import { packUuid, uuidText } from './request-id-words.js';

/** Request n's id. */
export function requestIdOf(requests: StoredRequests, n: number): string {
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
    if (at !== millisecond) {
      millisecond = at;
      text = new Date(at).toISOString();
    }
    entries.push(entryOf(requests, n, text));
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

/**
 * Entries already in their stored form (an entry read back to be written
 * again, a test's) as columns. An entry's time must be an ISO 8601 instant;
 * it is kept to the millisecond.
 */
export function storedRequests(entries: readonly NewRequestLog[]): StoredRequests {
  const { length } = entries;
  const uuids = new Uint32Array(length * 4);
  const numbers = (read: (entry: NewRequestLog) => number) => Float64Array.from(entries, read);
  return {
    length,
    accountId: numbers((entry) => entry.accountId),
    at: numbers((entry) => {
      const ms = Date.parse(entry.at);
      if (Number.isNaN(ms)) throw new RangeError(`A request log's time is not an ISO 8601 instant: ${entry.at}`);
      return ms;
    }),
    method: entries.map((entry) => entry.method),
    path: entries.map((entry) => entry.path),
    status: numbers((entry) => entry.status),
    durationMs: numbers((entry) => entry.durationMs),
    keyId: numbers((entry) => entry.keyId ?? Number.NaN),
    clientAddress: entries.map((entry) => entry.clientAddress),
    userAgent: entries.map((entry) => entry.userAgent),
    apiVersion: entries.map((entry) => entry.apiVersion),
    errorCode: entries.map((entry) => entry.errorCode),
    errorBody: entries.map((entry) => entry.errorBody),
    requestId: entries.map((entry, n) => (packUuid(entry.requestId, uuids, n * 4) ? undefined : entry.requestId)),
    uuids,
  };
}
