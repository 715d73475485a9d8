-- Outgoing mail and its delivery queue (docs/mail.md). Timestamps are ISO
-- 8601 UTC text with milliseconds, which sorts in time order.
--   sealed_body: the text and HTML parts, sealed (AES-256-GCM, MAIL_SECRETS_KEY
--                or a key kept in server_secrets): its links carry one-time
--                tokens, so it is never stored in clear.
--   channel:     how a sent mail went: handed to the SMTP server, or kept in
--                the local outbox (SMTP_URL unset).
CREATE TABLE mail (
  id               TEXT    PRIMARY KEY,
  kind             TEXT    NOT NULL,
  recipient        TEXT    NOT NULL,
  subject          TEXT    NOT NULL,
  sealed_body      TEXT    NOT NULL,
  account_id       INTEGER REFERENCES accounts (id),
  status           TEXT    NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  -- When the engine may next take the mail: its creation for new ones, the
  -- retry time after a failure, or the end of an engine's claim.
  next_attempt_at  TEXT    NOT NULL,
  claimed_by       TEXT,
  last_error       TEXT,
  created_at       TEXT    NOT NULL,
  sent_at          TEXT,
  channel          TEXT    CHECK (channel IN ('smtp', 'outbox'))
) STRICT;

-- Serves the engine's claim: due pending mail, oldest due first.
CREATE INDEX mail_due ON mail (next_attempt_at) WHERE status = 'pending';
-- Serves the listings (`store-orders mail list`, the development mailbox), newest first.
CREATE INDEX mail_created ON mail (created_at, id);
CREATE INDEX mail_recipient ON mail (recipient, created_at, id);
