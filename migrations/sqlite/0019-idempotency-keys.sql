-- Idempotency-Key records (docs/orders-v2.md#idempotency-keys): the first
-- response to a request with a key, replayed to a repeat for 24 hours.
--   fingerprint:   SHA-256 of the method, path and canonical body.
--   state:         in_progress while the first request runs (claimed by
--                  token until locked_until, its lease), then complete.
--   response_*:    the first response (status, headers as JSON, body).
CREATE TABLE idempotency_keys (
  account_id       INTEGER NOT NULL REFERENCES accounts (id),
  key              TEXT    NOT NULL,
  fingerprint      TEXT    NOT NULL,
  state            TEXT    NOT NULL CHECK (state IN ('in_progress', 'complete')),
  token            TEXT    NOT NULL,
  locked_until     TEXT    NOT NULL,
  response_status  INTEGER,
  response_headers TEXT,
  response_body    TEXT,
  created_at       TEXT    NOT NULL,
  expires_at       TEXT    NOT NULL,
  PRIMARY KEY (account_id, key)
) WITHOUT ROWID;

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
