-- Mirrors migrations/sqlite/0014-webhook-endpoint-pacing.sql: how fast an
-- endpoint may be sent to (issue 26).
--   rate_limit:   deliveries per second the store set for the endpoint, or
--                 NULL for no limit (then only its window paces it).
--   rate_next_at: the earliest start of the endpoint's next delivery under
--                 that limit; each claim reserves its starts by moving it on
--                 (one UPDATE of the row, so every process shares one rate).
--   paused_until: a 429 or 503 with Retry-After pauses the whole endpoint
--                 (not just the one delivery) until then.
ALTER TABLE webhook_endpoints ADD COLUMN rate_limit integer CHECK (rate_limit BETWEEN 1 AND 10000);
ALTER TABLE webhook_endpoints ADD COLUMN rate_next_at timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN paused_until timestamptz;
