-- Mirrors migrations/sqlite/0006-audit.sql: the audit trail (src/audit/).
-- Append-only; entries older than AUDIT_RETENTION_DAYS are deleted.
CREATE TABLE audit_events (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   bigint      NOT NULL REFERENCES accounts (id),
  at           timestamptz NOT NULL,
  actor_kind   text        NOT NULL CHECK (actor_kind IN ('user', 'key', 'operator', 'system')),
  -- The user or key id; NULL for operator and system.
  actor_id     bigint,
  address      text,
  -- Not constrained: new actions are added in code, without a migration.
  action       text        NOT NULL,
  target_kind  text,
  target_id    text,
  details      text        NOT NULL DEFAULT '{}'
);

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
