-- Issue 28: the request logs packed, one row per account and written batch
-- instead of one per request (src/storage/sqlite/sqlite-request-log-batches.ts
-- describes the format). SQLite writes the logs in the serving process, and a
-- B-tree row per request cost every logged request 3 to 4 µs whatever its
-- columns and indexes (BENCHMARKS.md); a row per batch costs it a few
-- nanoseconds. Mirrored by migrations/postgres/0033-request-log-batches.sql,
-- which changes nothing: PostgreSQL writes its rows in its own processes.
--
--   first_at, last_at:  the span of the batch's entries' times.
--   live:               how many entries it holds (pruned ones are null).
--   classes:            the status classes as bits (1 << 2 for 2xx).
--   statuses, methods, key_ids, paths, request_ids, order_ids:
--                       newline-framed lists ("\n200\n404\n") that a filter
--                       searches before unpacking a batch; they may repeat a
--                       value. order_ids: the orders the paths name.
--   entries:            the entries, JSON.
CREATE TABLE request_log_batches (
  id          INTEGER PRIMARY KEY,
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
  order_ids   TEXT    NOT NULL,
  entries     TEXT    NOT NULL
) STRICT;

-- A page walks one account's batches newest first.
CREATE INDEX request_log_batches_account_time ON request_log_batches (account_id, last_at, id);
-- The pruning takes the oldest batches.
CREATE INDEX request_log_batches_first_at ON request_log_batches (first_at);

-- The rows logged so far, packed up to 4,096 per batch in the order they were
-- written (an entry's id changes: the batch's id × 4096 + its position).
INSERT INTO request_log_batches (account_id, first_at, last_at, live, classes, statuses, methods, key_ids, paths, request_ids, order_ids, entries)
SELECT
  account_id,
  min(at),
  max(at),
  count(*),
  sum(DISTINCT CASE WHEN status BETWEEN 100 AND 999 THEN 1 << (status / 100) ELSE 1 END),
  char(10) || group_concat(status, char(10)) || char(10),
  char(10) || group_concat(method, char(10)) || char(10),
  char(10) || coalesce(group_concat(key_id, char(10)) || char(10), ''),
  char(10) || group_concat(path, char(10)) || char(10),
  char(10) || group_concat(request_id, char(10)) || char(10),
  char(10) || coalesce(group_concat(
    CASE WHEN path GLOB '/v[0-9]/store/orders/[1-9]*'
      THEN substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789'))) END,
    char(10)) || char(10), ''),
  json_object('e', json_group_array(
    json_array(at, method, path, status, duration_ms, request_id, key_id, client_address, user_agent, api_version, error_code, error_body)
    ORDER BY id))
FROM (SELECT *, (row_number() OVER (PARTITION BY account_id ORDER BY id) - 1) / 4096 AS chunk FROM request_logs)
GROUP BY account_id, chunk
ORDER BY min(id);

DROP TABLE request_logs;
