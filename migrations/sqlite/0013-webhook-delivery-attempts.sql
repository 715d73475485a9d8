-- Mirrors migrations/postgres/0013-webhook-delivery-attempts.sql: every
-- attempt of a webhook delivery, what was sent and what came back.
CREATE TABLE webhook_delivery_attempts (
  delivery_seq      INTEGER NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
  attempt           INTEGER NOT NULL,
  at                TEXT    NOT NULL,
  duration_ms       INTEGER,
  status_code       INTEGER,
  error             TEXT,
  request_headers   TEXT    NOT NULL,
  response_headers  TEXT,
  response_body     TEXT,
  PRIMARY KEY (delivery_seq, attempt)
) WITHOUT ROWID;
