import { packUuid, uuidText } from '../../request-logs/request-id-words.js';
import type { StoredRequests } from '../../request-logs/request-logs-repository.js';

/**
 * The request ids of SQLite's packed request logs
 * (sqlite-request-log-batches.ts). An id in randomUUID's form, as ours are,
 * is 16 bytes of the batch's request_uuids (its four words, big-endian) at
 * the entry's position; any other id is in the entry's column `r`, and
 * request_ids lists those of them that are listable(), for a filter's
 * search. The ids were most of a batch's bytes as text (37 per request, of
 * 46): on disk, in the WAL and in backups (BENCHMARKS.md, fifteenth
 * session).
 *
 * A batch written before request_uuids (NULL) holds every id in
 * request_ids instead, line n + 1 position n's ("\nA\nB\n"), empty for a
 * pruned position or an id in `r`.
 */

/** Whether a request id can be a line of request_ids: no newline, no surrogate (SQLite's text would hold U+FFFD for a lone one). */
export const listable = (requestId: string): boolean => !/[\n\uD800-\uDFFF]/.test(requestId);

/** Bytes per id in request_uuids. */
const UUID_BYTES = 16;

/**
 * The request_uuids of the requests at `rows` (null: a pruned position):
 * zeros where an id is not a UUID or a position pruned; no bytes at all when
 * no id is a UUID (every id is then in its entry).
 */
export function uuidBytes(requests: StoredRequests, rows: readonly (number | null)[]): Buffer {
  if (!rows.some((n) => n !== null && requests.requestId[n] === undefined)) return Buffer.alloc(0);
  const bytes = Buffer.alloc(rows.length * UUID_BYTES);
  rows.forEach((n, position) => {
    if (n !== null && requests.requestId[n] === undefined) putWords(requests.uuids, n * 4, bytes, position * UUID_BYTES);
  });
  return bytes;
}

/** An id's four words, big-endian, at `bytes[offset…]`. */
function putWords(words: Uint32Array, at: number, bytes: Buffer, offset: number): void {
  for (let word = 0; word < 4; word++) bytes.writeUInt32BE(words[at + word] as number, offset + word * 4);
}

/** The id at a position of request_uuids. */
export function uuidAt(bytes: Uint8Array, position: number): string {
  const words = new Uint32Array(4);
  const view = new DataView(bytes.buffer, bytes.byteOffset + position * UUID_BYTES, UUID_BYTES);
  for (let word = 0; word < 4; word++) words[word] = view.getUint32(word * 4);
  return uuidText(words, 0);
}

/** An id in UUID form as request_uuids holds it, for a filter's search; undefined for any other id. */
export function uuidSearched(requestId: string): Buffer | undefined {
  const words = new Uint32Array(4);
  if (!packUuid(requestId, words, 0)) return undefined;
  const bytes = Buffer.alloc(UUID_BYTES);
  putWords(words, 0, bytes, 0);
  return bytes;
}
