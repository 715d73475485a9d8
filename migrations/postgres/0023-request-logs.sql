-- Mirrors migrations/sqlite/0023-request-logs.sql: the request logs
-- (src/request-logs/, docs/request-logs.md). One row per request to the
-- store host that named an account by its key; written in batches, deleted
-- once older than REQUEST_LOG_RETENTION_DAYS. Never a header, cookie or
-- secret: the path's query values that could be secrets are redacted before
-- they get here.
CREATE TABLE request_logs (
  id             bigint           GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id     bigint           NOT NULL REFERENCES accounts (id),
  at             timestamptz      NOT NULL,
  method         text             NOT NULL,
  -- Path and query as sent, with secret-looking query values redacted.
  path           text             NOT NULL,
  status         smallint         NOT NULL,
  error_code     text,
  duration_ms    double precision NOT NULL,
  request_id     text             NOT NULL,
  -- The key's id (its visible start is read from api_keys), never the key.
  key_id         bigint,
  client_address text,
  user_agent     text,
  api_version    text,
  -- The Error record of a non-2xx answer, as sent.
  error_body     text
);

-- Serves every page: one account, newest first, from a cursor (at, id), the
-- other filters checked on the rows this walk reads.
CREATE INDEX request_logs_account_time ON request_logs (account_id, at DESC, id DESC);
-- Serves the pages of errors (status=4xx, 5xx, 409, …), which are rare among
-- the rows the index above walks.
CREATE INDEX request_logs_account_errors ON request_logs (account_id, at DESC, id DESC) WHERE status >= 400;
-- Serves requestId lookups.
CREATE INDEX request_logs_account_request ON request_logs (account_id, request_id);
-- Serves the pruning by age.
CREATE INDEX request_logs_at ON request_logs (at);

-- Keys that hold every scope (marked "*") hold logs:read already; the name
-- is appended for a release that reads the explicit list.
UPDATE api_keys SET scopes = scopes || ' logs:read'
WHERE scopes LIKE '*%' AND (' ' || scopes || ' ') NOT LIKE '% logs:read %';
