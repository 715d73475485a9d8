-- Order and message events: mirrors migrations/sqlite/0008-events.sql.

-- The last event position given out per account. Taken and bumped under the
-- account's row lock in the event's own transaction: a second transaction
-- writing events of the account waits for the first to commit, so an
-- account's positions commit in increasing order (an identity or sequence
-- would not: a lower value can commit later) and the feed (GET /v2/events)
-- can page by position without ever skipping a late commit.
ALTER TABLE accounts ADD COLUMN events_position bigint NOT NULL DEFAULT 0;

-- payload is the Event record's JSON text, exactly as it is sent.
-- subject ("order:<id>", "message:<id>") orders one subject's deliveries.
CREATE TABLE events (
  account_id bigint      NOT NULL REFERENCES accounts (id),
  position   bigint      NOT NULL,
  id         text        NOT NULL UNIQUE,
  type       text        NOT NULL,
  subject    text        NOT NULL,
  created_at timestamptz NOT NULL,
  payload    text        NOT NULL,
  PRIMARY KEY (account_id, position)
);

-- Retention: pruning deletes the oldest events across accounts.
CREATE INDEX events_created_at ON events (created_at);

-- A key created without --scopes holds every scope (the service stores the
-- full list); keys so created before events:read existed gain it. Matched by
-- holding all four scopes of that time, in any order, so this commutes with
-- other migrations that add scopes the same way.
UPDATE api_keys SET scopes = scopes || ' events:read'
WHERE (' ' || scopes || ' ') LIKE '% orders:read %'
  AND (' ' || scopes || ' ') LIKE '% orders:write %'
  AND (' ' || scopes || ' ') LIKE '% pets:read %'
  AND (' ' || scopes || ' ') LIKE '% messages:write %'
  AND (' ' || scopes || ' ') NOT LIKE '% events:read %';
