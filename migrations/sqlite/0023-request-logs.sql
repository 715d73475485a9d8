-- The request logs (src/request-logs/, docs/request-logs.md). One row per
-- request to the store host that named an account by its key; written in
-- batches, deleted once older than REQUEST_LOG_RETENTION_DAYS. Never a
-- header, cookie or secret: the path's query values that could be secrets
-- are redacted before they get here. No AUTOINCREMENT (its bookkeeping
-- row costs every logged request about a microsecond, BENCHMARKS.md): a new
-- id is one past the highest, and the pruning only ever deletes the lowest,
-- so ids are not reused while any row is kept; a cursor orders by time
-- first, so it keeps its place even then.
CREATE TABLE request_logs (
  id             INTEGER PRIMARY KEY,
  account_id     INTEGER NOT NULL REFERENCES accounts (id),
  at             TEXT    NOT NULL,
  method         TEXT    NOT NULL,
  -- Path and query as sent, with secret-looking query values redacted.
  path           TEXT    NOT NULL,
  status         INTEGER NOT NULL,
  error_code     TEXT,
  duration_ms    REAL    NOT NULL,
  request_id     TEXT    NOT NULL,
  -- The key's id (its visible start is read from api_keys), never the key.
  key_id         INTEGER,
  client_address TEXT,
  user_agent     TEXT,
  api_version    TEXT,
  -- The Error record of a non-2xx answer, as sent.
  error_body     TEXT
) STRICT;

-- Serves every page: one account, newest first, from a cursor (at, id); the
-- other filters are checked on the rows this walk reads. The only index:
-- each one more costs every logged request a B-tree insert, in the serving
-- process (docs/request-logs.md). The pruning walks ids, which grow with
-- time, and needs none.
CREATE INDEX request_logs_account_time ON request_logs (account_id, at, id);

-- Keys that hold every scope (marked "*") hold logs:read already; the name
-- is appended for a release that reads the explicit list.
UPDATE api_keys SET scopes = scopes || ' logs:read'
WHERE scopes LIKE '*%' AND (' ' || scopes || ' ') NOT LIKE '% logs:read %';
