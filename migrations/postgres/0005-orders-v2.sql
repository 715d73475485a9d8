-- Orders API v2: mirrors migrations/sqlite/0005-orders-v2.sql.

-- Bumped by a trigger in the same transaction as every write to an account's
-- orders, whoever makes it (server, CLI, another process), so a listing's
-- ETag can be answered from one primary-key read.
ALTER TABLE accounts ADD COLUMN orders_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION orders_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE accounts SET orders_version = orders_version + 1 WHERE id = OLD.account_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.account_id IS DISTINCT FROM OLD.account_id) THEN
    UPDATE accounts SET orders_version = orders_version + 1 WHERE id = NEW.account_id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER orders_bump_version AFTER INSERT OR UPDATE OR DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION orders_bump_version();

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
