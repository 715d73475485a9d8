-- Mirrors migrations/sqlite/0009-webhooks.sql: webhook endpoints and their
-- deliveries (issue 18). Timestamps are timestamptz; the adapter formats them
-- as ISO 8601 UTC with milliseconds, like SQLite's text.
CREATE TABLE webhook_endpoints (
  id                     text        PRIMARY KEY,
  account_id             bigint      NOT NULL REFERENCES accounts (id),
  url                    text        NOT NULL,
  -- Space-separated event types; NULL: every type.
  event_types            text,
  description            text,
  status                 text        NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason        text,
  -- Signing secrets, sealed with AES-256-GCM (src/webhooks/webhook-secrets.ts),
  -- never in clear. The previous one signs too until previous_secret_until.
  secret                 text        NOT NULL,
  previous_secret        text,
  previous_secret_until  timestamptz,
  -- The first failed attempt since the last success; NULL after a success.
  failing_since          timestamptz,
  created_at             timestamptz NOT NULL
);

CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, id);

-- One row per event and endpoint (a redelivery adds another). seq orders
-- the deliveries of one subject to one endpoint: a later one is claimed only
-- once every earlier one has succeeded or been given up.
CREATE TABLE webhook_deliveries (
  seq               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  endpoint_id       text        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id          text        NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  subject           text        NOT NULL,
  status            text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  created_at        timestamptz NOT NULL,
  -- When an engine may next take it: its creation, the retry time, or the end of a claim.
  next_attempt_at   timestamptz NOT NULL,
  attempts          integer     NOT NULL DEFAULT 0,
  claimed_by        text,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  last_error        text,
  last_duration_ms  integer
);

-- The engine's claim: due pending deliveries, and each one's predecessors.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_subject ON webhook_deliveries (endpoint_id, subject, seq) WHERE status = 'pending';
-- An endpoint's delivery log, newest first; and pruning an event.
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- Keys that could do everything before webhooks existed can manage webhooks too.
UPDATE api_keys SET scopes = scopes || ' webhooks:manage'
WHERE (' ' || scopes || ' ') LIKE '% orders:read %' AND (' ' || scopes || ' ') LIKE '% orders:write %'
  AND (' ' || scopes || ' ') LIKE '% pets:read %' AND (' ' || scopes || ' ') LIKE '% messages:write %'
  AND (' ' || scopes || ' ') NOT LIKE '% webhooks:manage %';
