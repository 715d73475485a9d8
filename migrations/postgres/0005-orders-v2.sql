-- Orders API v2: mirrors migrations/sqlite/0005-orders-v2.sql.

-- Bumped by triggers in the same transaction as every write to an account's
-- orders, whoever makes it (server, CLI, another process), so a listing's
-- ETag can be answered from one primary-key read. Statement-level triggers
-- over transition tables bump each touched account once per statement: a
-- multi-row INSERT of thousands of one account's orders updates its row
-- once, not once per order (repeated updates of one row in one transaction
-- each walk its growing version chain).
ALTER TABLE accounts ADD COLUMN orders_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION orders_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE accounts SET orders_version = orders_version + 1
    WHERE id IN (SELECT account_id FROM new_orders);
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE accounts SET orders_version = orders_version + 1
    WHERE id IN (SELECT account_id FROM old_orders UNION SELECT account_id FROM new_orders);
  ELSE
    UPDATE accounts SET orders_version = orders_version + 1
    WHERE id IN (SELECT account_id FROM old_orders);
  END IF;
  RETURN NULL;
END
$$;

-- A trigger with transition tables serves one event, hence three.
CREATE TRIGGER orders_version_after_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_orders
  FOR EACH STATEMENT EXECUTE FUNCTION orders_bump_version();
CREATE TRIGGER orders_version_after_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders
  FOR EACH STATEMENT EXECUTE FUNCTION orders_bump_version();
CREATE TRIGGER orders_version_after_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_orders
  FOR EACH STATEMENT EXECUTE FUNCTION orders_bump_version();

-- Keyset pages (account_id = $1 AND id > $2 ORDER BY id) for the petId and
-- status filters; the others ride orders_account (account_id, id).
CREATE INDEX orders_account_pet ON orders (account_id, pet_id, id);
CREATE INDEX orders_account_status ON orders (account_id, status, id);

-- Secrets the servers generate once and share through the database, e.g.
-- the cursor signing key when CURSOR_SECRET is not configured.
CREATE TABLE server_secrets (
  name       text        PRIMARY KEY,
  value      text        NOT NULL,
  created_at timestamptz NOT NULL
);
