-- Usage at a glance (src/usage/, docs/request-logs.md#usage-at-a-glance): the
-- counters of one account and one UTC hour, added to (INSERT … ON CONFLICT …
-- DO UPDATE) in the transaction that writes a batch of request logs and in
-- the one that settles a webhook delivery, never computed from the raw logs.
-- Pruned with the request logs (REQUEST_LOG_RETENTION_DAYS). The histogram's
-- bounds are usage/usage-counters.ts's LATENCY_BOUNDS_MS.
CREATE TABLE usage_hours (
  account_id                      INTEGER NOT NULL REFERENCES accounts (id),
  -- The hour's start, ISO 8601 UTC with milliseconds (2026-11-27T10:00:00.000Z).
  hour                            TEXT    NOT NULL,
  -- Requests by status class.
  requests_2xx                    INTEGER NOT NULL DEFAULT 0,
  requests_3xx                    INTEGER NOT NULL DEFAULT 0,
  requests_4xx                    INTEGER NOT NULL DEFAULT 0,
  requests_5xx                    INTEGER NOT NULL DEFAULT 0,
  -- The latency histogram: requests that took at most N ms (and more than the
  -- bound before), or more than 5000 ms (latency_over).
  latency_le_1                    INTEGER NOT NULL DEFAULT 0,
  latency_le_2                    INTEGER NOT NULL DEFAULT 0,
  latency_le_3                    INTEGER NOT NULL DEFAULT 0,
  latency_le_5                    INTEGER NOT NULL DEFAULT 0,
  latency_le_8                    INTEGER NOT NULL DEFAULT 0,
  latency_le_13                   INTEGER NOT NULL DEFAULT 0,
  latency_le_20                   INTEGER NOT NULL DEFAULT 0,
  latency_le_30                   INTEGER NOT NULL DEFAULT 0,
  latency_le_50                   INTEGER NOT NULL DEFAULT 0,
  latency_le_80                   INTEGER NOT NULL DEFAULT 0,
  latency_le_130                  INTEGER NOT NULL DEFAULT 0,
  latency_le_200                  INTEGER NOT NULL DEFAULT 0,
  latency_le_300                  INTEGER NOT NULL DEFAULT 0,
  latency_le_500                  INTEGER NOT NULL DEFAULT 0,
  latency_le_800                  INTEGER NOT NULL DEFAULT 0,
  latency_le_1300                 INTEGER NOT NULL DEFAULT 0,
  latency_le_2000                 INTEGER NOT NULL DEFAULT 0,
  latency_le_3000                 INTEGER NOT NULL DEFAULT 0,
  latency_le_5000                 INTEGER NOT NULL DEFAULT 0,
  latency_over                    INTEGER NOT NULL DEFAULT 0,
  -- Webhook deliveries that succeeded, were given up, and failed attempts to be retried.
  deliveries_succeeded            INTEGER NOT NULL DEFAULT 0,
  deliveries_failed               INTEGER NOT NULL DEFAULT 0,
  delivery_attempts_failed        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, hour)
) STRICT;

-- Serves the pruning by age.
CREATE INDEX usage_hours_hour ON usage_hours (hour);
