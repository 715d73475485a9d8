import { UUID_LENGTH, writeUuid } from '../../request-logs/request-id-words.js';
import { requestIdOf } from '../../request-logs/stored-requests.js';
import type { StoredRequests } from '../../request-logs/request-logs-repository.js';

/**
 * The request_ids list of SQLite's packed request logs
 * (sqlite-request-log-batches.ts): line n + 1 is position n's request id
 * ("\nA\nB\n"), empty for a pruned position or an id that is not listable().
 */

/** Whether a request id can be a line of request_ids: no newline, no surrogate (SQLite's text would hold U+FFFD for a lone one). */
export const listable = (requestId: string): boolean => !/[\n\uD800-\uDFFF]/.test(requestId);

const NEWLINE = 10;

/**
 * The list of the requests at `rows` (null: a pruned position). When every
 * id is in randomUUID's form, as ours are, the list is written as ASCII
 * bytes into one buffer, and read as one string: a string per id, joined,
 * cost the flush a third of a microsecond per request (BENCHMARKS.md,
 * fifteenth session).
 */
export function requestIdList(requests: StoredRequests, rows: readonly (number | null)[]): string {
  if (!rows.every((n) => n === null || requests.requestId[n] === undefined)) {
    // Joined once: a string added to per entry was a tree of a thousand pieces for the young generation to copy.
    const lines = rows.map((n) => {
      const id = n === null ? '' : requestIdOf(requests, n);
      return listable(id) ? id : '';
    });
    return `\n${lines.join('\n')}\n`;
  }
  const live = rows.reduce<number>((count, n) => (n === null ? count : count + 1), 0);
  const bytes = Buffer.allocUnsafe(1 + rows.length + live * UUID_LENGTH);
  bytes[0] = NEWLINE;
  let at = 1;
  for (const n of rows) {
    if (n !== null) {
      writeUuid(requests.uuids, n * 4, bytes, at);
      at += UUID_LENGTH;
    }
    bytes[at++] = NEWLINE;
  }
  return bytes.toString('latin1', 0, at);
}
