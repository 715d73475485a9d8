-- Order and message events (issue 18): the transactional outbox. Each row is
-- written in the same transaction as the change it reports.

-- The last event position given out per account. Taken and bumped under the
-- account's write lock in the event's own transaction, so an account's
-- positions commit in increasing order and the feed (GET /v2/events) can
-- page by position without ever skipping a late commit.
ALTER TABLE accounts ADD COLUMN events_position INTEGER NOT NULL DEFAULT 0;

-- payload is the Event record's JSON text, exactly as it is sent. WITHOUT
-- ROWID: rows live in the primary key's own B-tree (one tree fewer to write
-- per event; an import writes one event per order).
-- subject ("order:<id>", "message:<id>") orders one subject's deliveries.
CREATE TABLE events (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  position   INTEGER NOT NULL,
  id         TEXT    NOT NULL UNIQUE,
  type       TEXT    NOT NULL,
  subject    TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  payload    TEXT    NOT NULL,
  PRIMARY KEY (account_id, position)
) STRICT, WITHOUT ROWID;

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
