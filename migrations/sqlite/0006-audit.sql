-- The audit trail (src/audit/): who did what to an account, when and from
-- where. Append-only; entries older than AUDIT_RETENTION_DAYS are deleted.
-- AUTOINCREMENT: an id is never reused after a prune, so a listing cursor
-- (an id) keeps meaning the same place.
CREATE TABLE audit_events (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  at           TEXT    NOT NULL,
  actor_kind   TEXT    NOT NULL CHECK (actor_kind IN ('user', 'key', 'operator', 'system')),
  -- The user or key id; NULL for operator and system.
  actor_id     INTEGER,
  address      TEXT,
  -- Not constrained: new actions are added in code, without a migration.
  action       TEXT    NOT NULL,
  target_kind  TEXT,
  target_id    TEXT,
  details      TEXT    NOT NULL DEFAULT '{}'
) STRICT;

-- Serves the listing: one account, newest first, from a cursor.
CREATE INDEX audit_events_account ON audit_events (account_id, id);
-- Serves the pruning by age.
CREATE INDEX audit_events_at ON audit_events (at);

-- Keys that hold every scope are marked "*", so that they also hold the
-- scopes later releases add (audit:read is the first). The explicit list
-- stays after the marker: a release that does not know "*" still reads it.
UPDATE api_keys SET scopes = '* ' || scopes || ' audit:read'
WHERE ' ' || scopes || ' ' LIKE '% orders:read %'
  AND ' ' || scopes || ' ' LIKE '% orders:write %'
  AND ' ' || scopes || ' ' LIKE '% pets:read %'
  AND ' ' || scopes || ' ' LIKE '% messages:write %'
  AND scopes NOT LIKE '*%';
