-- Quickstart messages and their delivery queue. Timestamps are ISO 8601 UTC
-- text with milliseconds, which sorts in time order.
CREATE TABLE messages (
  id               TEXT    PRIMARY KEY,
  account_id       INTEGER NOT NULL REFERENCES accounts (id),
  message          TEXT    NOT NULL CHECK (length(message) >= 1),
  status           TEXT    NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
  created_at       TEXT    NOT NULL,
  -- When a dispatcher may next take the message: its creation for new ones,
  -- the retry time after a failure, or the end of a dispatcher's claim.
  next_attempt_at  TEXT    NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  claimed_by       TEXT,
  last_error       TEXT,
  sent_at          TEXT
) STRICT;

-- Serves the dispatcher's claim: due queued messages, oldest due first.
CREATE INDEX messages_due ON messages (next_attempt_at) WHERE status = 'queued';

-- Idempotency-Key bindings. The primary key is what makes concurrent
-- duplicates create one message; an expired binding is taken over in place.
CREATE TABLE message_idempotency_keys (
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  key          TEXT    NOT NULL,
  fingerprint  TEXT    NOT NULL,
  message_id   TEXT    NOT NULL,
  expires_at   TEXT    NOT NULL,
  PRIMARY KEY (account_id, key)
) STRICT;
