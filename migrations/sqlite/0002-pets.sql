-- Pets belong to an account, like orders. id is an int64 (rowid alias: chosen
-- by SQLite when the operator does not give one).
CREATE TABLE pets (
  id         INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at TEXT    NOT NULL
) STRICT;

CREATE INDEX pets_account ON pets (account_id, id);
