-- Issue 28: the request logs packed, one row per account and written batch
-- instead of one per request (src/storage/sqlite/sqlite-request-log-batches.ts
-- describes the format). SQLite writes the logs in the serving process, and a
-- B-tree row per request cost every logged request 3 to 4 µs whatever its
-- columns and indexes (BENCHMARKS.md); a row per batch costs it a few
-- nanoseconds. Mirrored by migrations/postgres/0033-request-log-batches.sql,
-- which changes nothing: PostgreSQL writes its rows in its own processes.
--
--   first_at, last_at:  the span of the batch's entries' times, all within
--                       one 10-second window (a page's walk is bounded by it).
--   live:               how many entries it holds (pruned ones are null).
--   classes:            the status classes as bits (1 << 2 for 2xx).
--   statuses, methods, key_ids, paths, request_ids:
--                       newline-framed lists ("\n200\n404\n") that a filter
--                       searches before unpacking a batch; they may repeat a
--                       value.
--   entries:            the entries, JSON.
-- AUTOINCREMENT: an entry's id is its batch's id × 4096 + its position, and
-- the pruning deletes by time, not by id, so a batch's id must never be used
-- again (its bookkeeping costs one write per batch, not per request).
CREATE TABLE request_log_batches (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id  INTEGER NOT NULL REFERENCES accounts (id),
  first_at    TEXT    NOT NULL,
  last_at     TEXT    NOT NULL,
  live        INTEGER NOT NULL,
  classes     INTEGER NOT NULL,
  statuses    TEXT    NOT NULL,
  methods     TEXT    NOT NULL,
  key_ids     TEXT    NOT NULL,
  paths       TEXT    NOT NULL,
  request_ids TEXT    NOT NULL,
  entries     TEXT    NOT NULL
) STRICT;

-- A page walks one account's batches newest first.
CREATE INDEX request_log_batches_account_time ON request_log_batches (account_id, last_at, id);
-- The pruning takes the oldest batches.
CREATE INDEX request_log_batches_first_at ON request_log_batches (first_at);

-- The order page (an order's requests): which batches hold a request whose
-- path names the order (src/request-logs/request-log-orders.ts). A row per
-- order and batch: a request that names no order (the listing) adds none.
CREATE TABLE request_log_orders (
  account_id INTEGER NOT NULL,
  order_id   INTEGER NOT NULL,
  batch_id   INTEGER NOT NULL REFERENCES request_log_batches (id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, order_id, batch_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX request_log_orders_batch ON request_log_orders (batch_id);

-- The rows logged so far, packed up to 4,096 per batch in the order they were
-- written, per account and 10-second window (an entry's id changes: the
-- batch's id × 4096 + its position).
CREATE TEMP TABLE request_log_chunks AS
SELECT
  l.*,
  substr(l.at, 1, 18) AS window,
  (row_number() OVER (PARTITION BY l.account_id, substr(l.at, 1, 18) ORDER BY l.id) - 1) / 4096 AS chunk
FROM request_logs l;

CREATE TEMP TABLE request_log_chunk_ids AS
SELECT account_id, window, chunk, row_number() OVER (ORDER BY min(id)) AS batch_id
FROM request_log_chunks
GROUP BY account_id, window, chunk;

INSERT INTO request_log_batches (id, account_id, first_at, last_at, live, classes, statuses, methods, key_ids, paths, request_ids, entries)
SELECT
  i.batch_id,
  c.account_id,
  min(c.at),
  max(c.at),
  count(*),
  sum(DISTINCT CASE WHEN c.status BETWEEN 100 AND 999 THEN 1 << (c.status / 100) ELSE 1 END),
  char(10) || group_concat(c.status, char(10)) || char(10),
  char(10) || group_concat(c.method, char(10)) || char(10),
  char(10) || coalesce(group_concat(c.key_id, char(10)) || char(10), ''),
  char(10) || group_concat(c.path, char(10)) || char(10),
  char(10) || group_concat(c.request_id, char(10)) || char(10),
  json_object('e', json_group_array(
    json_array(c.at, c.method, c.path, c.status, c.duration_ms, c.request_id, c.key_id, c.client_address, c.user_agent, c.api_version, c.error_code, c.error_body)
    ORDER BY c.id))
FROM request_log_chunks c JOIN request_log_chunk_ids i USING (account_id, window, chunk)
GROUP BY i.batch_id
ORDER BY i.batch_id;

-- The orders their paths name, by the rule of request-log-orders.ts: the
-- digits after /vN/store/orders/ (no leading zero, at most int64), then the
-- path's end, a slash or a query.
INSERT OR IGNORE INTO request_log_orders (account_id, order_id, batch_id)
SELECT c.account_id, CAST(d.digits AS INTEGER), i.batch_id
FROM request_log_chunks c
JOIN request_log_chunk_ids i USING (account_id, window, chunk)
JOIN (SELECT id, substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789'))) AS digits FROM request_log_chunks) d ON d.id = c.id
WHERE c.path GLOB '/v[0-9]/store/orders/[1-9]*'
  AND (length(d.digits) < 19 OR (length(d.digits) = 19 AND d.digits <= '9223372036854775807'))
  AND substr(c.path, 18 + length(d.digits), 1) IN ('', '/', '?');

DROP TABLE request_log_chunk_ids;
DROP TABLE request_log_chunks;
DROP TABLE request_logs;
