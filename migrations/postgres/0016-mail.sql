-- Mirrors migrations/sqlite/0016-mail.sql: outgoing mail and its delivery
-- queue (docs/mail.md). Timestamps are timestamptz; the adapter formats them
-- as ISO 8601 UTC with milliseconds, like SQLite's text.
--   sealed_body: the text and HTML parts, sealed (AES-256-GCM, MAIL_SECRETS_KEY
--                or a key kept in server_secrets): its links carry one-time
--                tokens, so it is never stored in clear.
--   channel:     how a sent mail went: handed to the SMTP server, or kept in
--                the local outbox (SMTP_URL unset).
CREATE TABLE mail (
  id               text        PRIMARY KEY,
  kind             text        NOT NULL,
  recipient        text        NOT NULL,
  subject          text        NOT NULL,
  sealed_body      text        NOT NULL,
  account_id       bigint      REFERENCES accounts (id),
  status           text        NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         integer     NOT NULL DEFAULT 0,
  -- When the engine may next take the mail: its creation for new ones, the
  -- retry time after a failure, or the end of an engine's claim.
  next_attempt_at  timestamptz NOT NULL,
  claimed_by       text,
  last_error       text,
  created_at       timestamptz NOT NULL,
  sent_at          timestamptz,
  channel          text        CHECK (channel IN ('smtp', 'outbox'))
);

-- Serves the engine's claim: due pending mail, oldest due first.
CREATE INDEX mail_due ON mail (next_attempt_at) WHERE status = 'pending';
-- Serves the listings (`store-orders mail list`, the development mailbox), newest first.
CREATE INDEX mail_created ON mail (created_at, id);
CREATE INDEX mail_recipient ON mail (recipient, created_at, id);
