-- Webhook endpoints and their deliveries (issue 18). Timestamps are ISO 8601
-- UTC text with milliseconds, which sorts in time order.
CREATE TABLE webhook_endpoints (
  id                     TEXT    PRIMARY KEY,
  account_id             INTEGER NOT NULL REFERENCES accounts (id),
  url                    TEXT    NOT NULL,
  -- Space-separated event types; NULL: every type.
  event_types            TEXT,
  description            TEXT,
  status                 TEXT    NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason        TEXT,
  -- Signing secrets, sealed with AES-256-GCM (src/webhooks/webhook-secrets.ts),
  -- never in clear. The previous one signs too until previous_secret_until.
  secret                 TEXT    NOT NULL,
  previous_secret        TEXT,
  previous_secret_until  TEXT,
  -- The first failed attempt since the last success; NULL after a success.
  failing_since          TEXT,
  created_at             TEXT    NOT NULL
) STRICT;

CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, id);

-- One row per event and endpoint (a redelivery adds another). seq orders
-- the deliveries of one subject to one endpoint: a later one is claimed only
-- once every earlier one has succeeded or been given up.
CREATE TABLE webhook_deliveries (
  seq               INTEGER PRIMARY KEY,
  endpoint_id       TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id          TEXT    NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  subject           TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  created_at        TEXT    NOT NULL,
  -- When an engine may next take it: its creation, the retry time, or the end of a claim.
  next_attempt_at   TEXT    NOT NULL,
  attempts          INTEGER NOT NULL DEFAULT 0,
  claimed_by        TEXT,
  last_attempt_at   TEXT,
  last_status_code  INTEGER,
  last_error        TEXT,
  last_duration_ms  INTEGER
) STRICT;

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
