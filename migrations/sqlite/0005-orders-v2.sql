-- Orders API v2: a per-account change counter for conditional GET, indexes
-- for the v2 filters, and server-generated secrets shared by every process.

-- Bumped by triggers in the same transaction as every write to an account's
-- orders, whoever makes it (server, CLI, another process), so a listing's
-- ETag can be answered from one primary-key read.
ALTER TABLE accounts ADD COLUMN orders_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER orders_version_after_insert AFTER INSERT ON orders
BEGIN
  UPDATE accounts SET orders_version = orders_version + 1 WHERE id = NEW.account_id;
END;

CREATE TRIGGER orders_version_after_update AFTER UPDATE ON orders
BEGIN
  UPDATE accounts SET orders_version = orders_version + 1 WHERE id IN (OLD.account_id, NEW.account_id);
END;

CREATE TRIGGER orders_version_after_delete AFTER DELETE ON orders
BEGIN
  UPDATE accounts SET orders_version = orders_version + 1 WHERE id = OLD.account_id;
END;

-- Keyset pages (account_id = ? AND id > ? ORDER BY id) for the petId and
-- status filters; the others ride orders_account (account_id, id).
CREATE INDEX orders_account_pet ON orders (account_id, pet_id, id);
CREATE INDEX orders_account_status ON orders (account_id, status, id);

-- Secrets the servers generate once and share through the database, e.g.
-- the cursor signing key when CURSOR_SECRET is not configured.
CREATE TABLE server_secrets (
  name       TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
