-- Mirrors migrations/postgres/0014-webhook-endpoint-pacing.sql: how fast an
-- endpoint may be sent to (its rate limit, the next start that limit allows,
-- and a pause a Retry-After asked for).
ALTER TABLE webhook_endpoints ADD COLUMN rate_limit INTEGER CHECK (rate_limit BETWEEN 1 AND 10000);
ALTER TABLE webhook_endpoints ADD COLUMN rate_next_at TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN paused_until TEXT;
