-- Mirrors migrations/sqlite/0025-usage-hours.sql.
-- Usage at a glance (src/usage/, docs/request-logs.md#usage-at-a-glance): the
-- counters of one account and one UTC hour, added to (INSERT … ON CONFLICT …
-- DO UPDATE) in the transaction that writes a batch of request logs and in
-- the one that settles a webhook delivery, never computed from the raw logs.
-- Pruned with the request logs (REQUEST_LOG_RETENTION_DAYS). The histogram's
-- bounds are usage/usage-counters.ts's LATENCY_BOUNDS_MS.
CREATE TABLE usage_hours (
  account_id                      bigint      NOT NULL REFERENCES accounts (id),
  -- The hour's start (UTC).
  hour                            timestamptz NOT NULL,
  -- Requests by status class.
  requests_2xx                    bigint      NOT NULL DEFAULT 0,
  requests_3xx                    bigint      NOT NULL DEFAULT 0,
  requests_4xx                    bigint      NOT NULL DEFAULT 0,
  requests_5xx                    bigint      NOT NULL DEFAULT 0,
  -- The latency histogram: requests that took at most N ms (and more than the
  -- bound before), or more than 5000 ms (latency_over).
  latency_le_1                    bigint      NOT NULL DEFAULT 0,
  latency_le_2                    bigint      NOT NULL DEFAULT 0,
  latency_le_3                    bigint      NOT NULL DEFAULT 0,
  latency_le_5                    bigint      NOT NULL DEFAULT 0,
  latency_le_8                    bigint      NOT NULL DEFAULT 0,
  latency_le_13                   bigint      NOT NULL DEFAULT 0,
  latency_le_20                   bigint      NOT NULL DEFAULT 0,
  latency_le_30                   bigint      NOT NULL DEFAULT 0,
  latency_le_50                   bigint      NOT NULL DEFAULT 0,
  latency_le_80                   bigint      NOT NULL DEFAULT 0,
  latency_le_130                  bigint      NOT NULL DEFAULT 0,
  latency_le_200                  bigint      NOT NULL DEFAULT 0,
  latency_le_300                  bigint      NOT NULL DEFAULT 0,
  latency_le_500                  bigint      NOT NULL DEFAULT 0,
  latency_le_800                  bigint      NOT NULL DEFAULT 0,
  latency_le_1300                 bigint      NOT NULL DEFAULT 0,
  latency_le_2000                 bigint      NOT NULL DEFAULT 0,
  latency_le_3000                 bigint      NOT NULL DEFAULT 0,
  latency_le_5000                 bigint      NOT NULL DEFAULT 0,
  latency_over                    bigint      NOT NULL DEFAULT 0,
  -- Webhook deliveries that succeeded, were given up, and failed attempts to be retried.
  deliveries_succeeded            bigint      NOT NULL DEFAULT 0,
  deliveries_failed               bigint      NOT NULL DEFAULT 0,
  delivery_attempts_failed        bigint      NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, hour)
);

-- Serves the pruning by age.
CREATE INDEX usage_hours_hour ON usage_hours (hour);
