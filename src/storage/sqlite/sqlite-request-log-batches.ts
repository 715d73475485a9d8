import type { ApiVersion, NewRequestLog, RequestLog, StoredRequests } from '../../request-logs/request-logs-repository.js';
import { orderIdInPath } from '../../request-logs/request-log-orders.js';
import { microseconds, milliseconds, timeTexts, WINDOW_MS, windowOfTime, type Text } from './sqlite-request-log-times.js';
import { listable, uuidAt, uuidBytes } from './sqlite-request-log-ids.js';
import { storedRequests } from '../../request-logs/stored-requests.js';
import { textTable, Uniform, valueAt, type Column } from './sqlite-request-log-columns.js';
import { framed, span, statusClassBit } from './sqlite-request-log-summary.js';

/**
 * SQLite keeps the request logs packed: one row of request_log_batches per
 * account and written batch (migration 0033), not one row per request, which
 * cost every logged request 3 to 4 µs of a 40 µs listing in the serving
 * process (BENCHMARKS.md, eleventh and thirteenth sessions).
 *
 * A batch's `entries` is JSON, column by column: `{"w": window, "s":
 * [strings…], "t": [times…], "m": [methods…], …}` (Columns), the n-th value
 * of every column the n-th entry's; a pruned entry's time is null, so the
 * others keep their positions. Texts a batch repeats (methods, paths, user
 * agents, addresses, API versions, error codes) are indexes into `s`, each
 * distinct text once; a time is a number of milliseconds after `w`, the
 * start of the batch's window (epoch milliseconds), when it is in that
 * window, or else its text (2026-11-27T10:42:17.123Z: only a batch pruned in
 * part and packed again may hold one); a duration a whole number of
 * microseconds (microseconds()). A
 * column every entry has the same value in is that value alone (Uniform),
 * and a column no entry has a value for is left out. JSON writes a few long
 * arrays of small integers much faster than an array per entry
 * (BENCHMARKS.md, fourteenth session), and one value faster still.
 *
 * A request id in UUID form is not in `entries` but 16 bytes of the batch's
 * `request_uuids` at the entry's position (migration 0034); any other is in
 * the column `r`, and listed in `request_ids` for a filter's search
 * (sqlite-request-log-ids.ts). A batch written before request_uuids has
 * every listable id in request_ids, at its position, and is read so.
 *
 * Batches written before this form (no `w`: migration 0033's, and its
 * release's) are `{"s": [strings…], "e": [RequestIdFirst or null…]}`, read
 * as they are. An entry's id is its batch's id × BATCH_ENTRIES_MAX + its
 * position: ids grow in the order entries were written, as the old rows' did.
 *
 * The batch's other columns summarize its live entries, so that a filter
 * skips the batches that cannot match without unpacking them: the time
 * span, the status classes as bits, and newline-framed lists ("\nGET\n")
 * of the statuses, methods, key ids, paths and request ids not in UUID form
 * (those are searched in request_uuids). The orders the
 * paths name are rows of request_log_orders (the order page's index).
 *
 * A batch's entries all arrived within one WINDOW_MS-aligned window (a flush
 * that holds older requests, after an outage, writes a batch per window), so
 * that a page from a cursor or before an instant starts its walk at most
 * WINDOW_MS after it rather than at the newest batch. A list is only searched
 * for "\n<text>" (a path prefix) or "\n<text>\n" (a whole value): it may
 * repeat a value, and finds one holding a newline (but for request ids:
 * listable()); it only says "maybe", and every entry read is checked exactly.
 */
export const BATCH_ENTRIES_MAX = 4096;

/** A batch's entries by column (the `entries` JSON besides `w` and `s`); null where an entry has no value. */
interface Columns {
  /** Time (null: a pruned entry). */
  t: (Text | null)[];
  m: Column<number>;
  p: Column<number>;
  /** Status. */
  c: Column<number>;
  /** Duration (microseconds()). */
  d: (number | [number] | null)[];
  /** Key id; client address, user agent, API version, error code (texts); error body; a request id not in UUID form. */
  k?: Column<number>;
  a?: Column<number>;
  u?: Column<number>;
  v?: Column<number>;
  x?: Column<number>;
  b?: Column<string>;
  r?: Column<string>;
}

/** The first form's entry: [at, method, path, status, durationMs, requestId, keyId, clientAddress, userAgent, apiVersion, errorCode, errorBody] */
type RequestIdFirst = [string, string, Text, number, number, string, (number | null)?, (Text | null)?, (Text | null)?, (string | null)?, (string | null)?, (string | null)?];

/** The columns of one batch row, in BATCH_COLUMNS' order. */
export interface BatchColumns {
  first_at: string;
  last_at: string;
  live: number;
  classes: number;
  statuses: string;
  methods: string;
  key_ids: string;
  paths: string;
  request_ids: string;
  entries: string;
  /** Null in a batch written before migration 0034. */
  request_uuids: Uint8Array | null;
}

export const BATCH_COLUMNS = 'first_at, last_at, live, classes, statuses, methods, key_ids, paths, request_ids, entries, request_uuids';

/**
 * One batch of one account's requests in its stored form: the JSON of the
 * entries and the summary of those present. `rows` are the requests' indexes
 * in `requests`, by position (null: a pruned position); up to
 * BATCH_ENTRIES_MAX, at least one present, all arrived in one window.
 */
export function packBatch(requests: StoredRequests, rows: readonly (number | null)[]): { columns: BatchColumns; orders: bigint[] } {
  const { strings, ref, lastRef } = textTable();
  const [methodRef, pathRef, addressRef, agentRef, versionRef] = [lastRef(), lastRef(), lastRef(), lastRef(), lastRef()];
  const { atText } = requests;
  const first = rows.find((row) => row !== null && !Number.isNaN(requests.at[row])) ?? null;
  const window = first === null ? 0 : windowOfTime(requests.at[first] as number);
  const statuses = new Set<number>();
  const methods = new Set<string>();
  const keyIds = new Set<number>();
  const orders = new Set<bigint>();
  // Paths are few per batch: each one's order id is read once, when it is first met.
  const pathsSeen = new Set<string>();
  const textIds = new Set<string>();
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  // Times kept as text (atText): compared as text, as the span's columns are.
  const texts: string[] = [];
  let live = 0;
  let classes = 0;
  // No entry's value yet: NaN equals no status, and undefined no method.
  let lastStatus = Number.NaN;
  let lastMethod: string | undefined;
  // Sets are added to only when a value changes: a busy client's entries repeat the one before.
  let lastPath: string | undefined;
  let lastKeyId = Number.NaN;
  const t: (Text | null)[] = [];
  const d: (number | [number] | null)[] = [];
  // Plain fields, not a record by name: a helper taking the column by name made packing slower than the JSON it saves.
  const m = new Uniform<number>();
  const p = new Uniform<number>();
  const c = new Uniform<number>();
  const k = new Uniform<number>();
  const a = new Uniform<number>();
  const u = new Uniform<number>();
  const v = new Uniform<number>();
  const x = new Uniform<number>();
  const b = new Uniform<string>();
  const r = new Uniform<string>();
  for (const n of rows) {
    if (n === null) {
      t.push(null);
      d.push(null);
      for (const column of [m, p, c, k, a, u, v, x]) column.skip();
      b.skip();
      r.skip();
      continue;
    }
    live++;
    const at = requests.at[n] as number;
    const text = atText?.[n];
    if (text !== undefined) texts.push(text);
    else {
      if (at < firstAt) firstAt = at;
      if (at > lastAt) lastAt = at;
    }
    const status = requests.status[n] as number;
    if (status !== lastStatus) {
      lastStatus = status;
      statuses.add(status);
      classes |= statusClassBit(status);
    }
    const method = requests.method[n] as string;
    if (method !== lastMethod) {
      lastMethod = method;
      methods.add(method);
    }
    const path = requests.path[n] as string;
    if (path !== lastPath) {
      lastPath = path;
      if (!pathsSeen.has(path)) {
        pathsSeen.add(path);
        const order = orderIdInPath(path);
        if (order !== undefined) orders.add(order);
      }
    }
    const offset = at - window;
    t.push(text ?? (offset >= 0 && offset < WINDOW_MS ? offset : new Date(at).toISOString()));
    d.push(microseconds(requests.durationMs[n] as number));
    m.add(methodRef(method));
    p.add(pathRef(path));
    c.add(status);
    const keyId = requests.keyId[n] as number;
    if (keyId !== lastKeyId && !Number.isNaN(keyId)) keyIds.add((lastKeyId = keyId));
    k.add(Number.isNaN(keyId) ? null : keyId);
    // Each read into its own constant: read through an array literal, they cost packing 0.04 µs per request.
    const clientAddress = requests.clientAddress[n];
    a.add(clientAddress === undefined ? null : addressRef(clientAddress));
    const userAgent = requests.userAgent[n];
    u.add(userAgent === undefined ? null : agentRef(userAgent));
    const apiVersion = requests.apiVersion[n];
    v.add(apiVersion === undefined ? null : versionRef(apiVersion));
    const errorCode = requests.errorCode[n];
    x.add(errorCode === undefined ? null : ref(errorCode));
    b.add(requests.errorBody[n] ?? null);
    const requestId = requests.requestId[n];
    // An id with a newline would break the list's lines, and a lone surrogate come back as U+FFFD: the column r holds it.
    // An id not in UUID form is in the column r, and listed for the search if it can be a line (sqlite-request-log-ids.ts).
    r.add(requestId ?? null);
    if (requestId !== undefined && listable(requestId)) textIds.add(requestId);
  }
  const stored: Record<string, unknown> = { w: window, s: strings, t, d };
  const columns = { m, p, c, k, a, u, v, x, b, r };
  for (const [name, column] of Object.entries(columns)) {
    const value = column.stored();
    if (value !== undefined) stored[name] = value;
  }
  return {
    columns: {
      ...span(firstAt, lastAt, texts),
      live,
      classes,
      statuses: framed(statuses),
      methods: framed(methods),
      key_ids: framed(keyIds),
      paths: framed(pathsSeen),
      request_ids: framed(textIds),
      entries: JSON.stringify(stored),
      request_uuids: uuidBytes(requests, rows),
    },
    orders: [...orders],
  };
}

/** packBatch of entries as objects (null: a pruned position), each kept at its position: a batch pruned in part is packed again so. */
export function packEntries(entries: readonly (NewRequestLog | null)[]): { columns: BatchColumns; orders: bigint[] } {
  let next = 0;
  const rows = entries.map((entry) => (entry === null ? null : next++));
  return packBatch(
    storedRequests(entries.filter((entry): entry is NewRequestLog => entry !== null)),
    rows,
  );
}

/** A stored entry, without its key's start (read from api_keys by the caller). */
export type UnpackedEntry = Omit<RequestLog, 'keyStart'>;

/** The entries of a batch row by position (null: pruned), each with its id; `requestIds` and `requestUuids` are the row's (sqlite-request-log-ids.ts). */
export function unpackBatch(batchId: bigint, accountId: number, entriesJson: string, requestIds: string, requestUuids: Uint8Array | null): (UnpackedEntry | null)[] {
  const stored = JSON.parse(entriesJson) as (Columns & { w: number; s: string[] }) | { w: undefined; s?: string[]; e: (RequestIdFirst | null)[] };
  const s = stored.s ?? [];
  const text = (value: Text): string => (typeof value === 'number' ? (s[value] as string) : value);
  const base = batchId * BigInt(BATCH_ENTRIES_MAX);
  if (stored.w === undefined) return stored.e.map((packed, position) => (packed === null ? null : unpackFirstForm(base + BigInt(position), accountId, packed, text)));
  const time = timeTexts(stored.w);
  const { t, m, p, c, d, k, a, u, v, x, b, r } = stored;
  const optionalText = (value: number | null | undefined) => (value === undefined || value === null ? undefined : text(value));
  // Before request_uuids, line n + 1 of request_ids is position n's ("\nA\nB\n").
  const ids = requestUuids === null ? requestIds.split('\n') : [];
  return t.map((at, n) => {
    if (at === null) return null;
    const entry: UnpackedEntry = {
      id: base + BigInt(n),
      accountId,
      at: time(at),
      method: text(valueAt(m, n) as number),
      path: text(valueAt(p, n) as number),
      status: valueAt(c, n) as number,
      durationMs: milliseconds(d[n] as number | [number]),
      requestId: valueAt(r, n) ?? (requestUuids === null ? (ids[n + 1] as string) : uuidAt(requestUuids, n)),
    };
    const [keyId, address, agent, version, code] = [valueAt(k, n), valueAt(a, n), valueAt(u, n), valueAt(v, n), valueAt(x, n)];
    return withOptional(entry, keyId, optionalText(address), optionalText(agent), optionalText(version), optionalText(code), valueAt(b, n), text);
  });
}

function unpackFirstForm(id: bigint, accountId: number, packed: RequestIdFirst, text: (value: Text) => string): UnpackedEntry {
  const [at, method, path, status, durationMs, requestId, keyId, clientAddress, userAgent, apiVersion, errorCode, errorBody] = packed;
  return withOptional({ id, accountId, at, method, path: text(path), status, durationMs, requestId }, keyId, clientAddress, userAgent, apiVersion, errorCode, errorBody, text);
}

function withOptional(
  entry: UnpackedEntry,
  keyId: number | null | undefined,
  clientAddress: Text | null | undefined,
  userAgent: Text | null | undefined,
  apiVersion: string | null | undefined,
  errorCode: string | null | undefined,
  errorBody: string | null | undefined,
  text: (value: Text) => string,
): UnpackedEntry {
  if (errorCode !== undefined && errorCode !== null) entry.errorCode = errorCode;
  if (keyId !== undefined && keyId !== null) entry.keyId = keyId;
  if (clientAddress !== undefined && clientAddress !== null) entry.clientAddress = text(clientAddress);
  if (userAgent !== undefined && userAgent !== null) entry.userAgent = text(userAgent);
  // Written only from API_VERSIONS.
  if (apiVersion !== undefined && apiVersion !== null) entry.apiVersion = apiVersion as ApiVersion;
  if (errorBody !== undefined && errorBody !== null) entry.errorBody = errorBody;
  return entry;
}

/** An unpacked entry as written (the inverse of packBatch for one entry): what a pruned batch is packed again from. */
export function asWritten(entry: UnpackedEntry): NewRequestLog {
  const written: NewRequestLog & { id?: bigint } = { ...entry };
  delete written.id;
  return written;
}
