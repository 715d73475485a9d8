-- Mirrors migrations/sqlite/0003-messages.sql: quickstart messages and their
-- delivery queue. Timestamps are timestamptz; the adapter formats them as
-- ISO 8601 UTC with milliseconds, like SQLite's text.
CREATE TABLE messages (
  id               text        PRIMARY KEY,
  account_id       bigint      NOT NULL REFERENCES accounts (id),
  message          text        NOT NULL CHECK (char_length(message) >= 1),
  status           text        NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
  created_at       timestamptz NOT NULL,
  -- When a dispatcher may next take the message: its creation for new ones,
  -- the retry time after a failure, or the end of a dispatcher's claim.
  next_attempt_at  timestamptz NOT NULL,
  attempts         integer     NOT NULL DEFAULT 0,
  claimed_by       text,
  last_error       text,
  sent_at          timestamptz
);

-- Serves the dispatcher's claim: due queued messages, oldest due first.
CREATE INDEX messages_due ON messages (next_attempt_at) WHERE status = 'queued';

-- Idempotency-Key bindings. The primary key is what makes concurrent
-- duplicates create one message; an expired binding is taken over in place.
CREATE TABLE message_idempotency_keys (
  account_id   bigint      NOT NULL REFERENCES accounts (id),
  key          text        NOT NULL,
  fingerprint  text        NOT NULL,
  message_id   text        NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);
