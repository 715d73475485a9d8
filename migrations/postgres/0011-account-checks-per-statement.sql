-- An order's and an event's account is checked once per statement (about
-- 3 ms per 10,000 rows) instead of once per row by a foreign key, whose
-- checks cost a third of every insert (35 ms per 10,000 orders, as much
-- again for their events; an import writes a million of each). The
-- guarantees are the ones the foreign keys gave:
--   * orders: the statement-level trigger that bumps each account's
--     orders_version (0005) now also fails the statement, with the foreign
--     key's error (SQLSTATE 23503, the create's account_not_found), when an
--     inserted or updated order names an account that does not exist. Its
--     UPDATE locks the account rows until the transaction ends, as the
--     foreign key's check did;
--   * events: a statement-level trigger fails the statement the same way,
--     locking the accounts it names (FOR KEY SHARE, as the foreign key's
--     check did). The service's own inserts never reach it with an unknown
--     account: they join the accounts they have just locked and bumped
--     (events_position, postgres-events.ts);
--   * an account that still has orders or events cannot be deleted
--     (accounts_keep_dependents, below; its id is an identity, never updated).
-- Two differences from real foreign keys, neither reachable from the service
-- (it never deletes or truncates accounts): TRUNCATE accounts does not reach
-- orders and events (no trigger sees it), and a delete of an account at
-- REPEATABLE READ that raced a raw insert of one of its events (the only
-- write here that locks the account without updating it) may miss that event
-- where a foreign key would raise a serialization failure.
-- SQLite keeps its foreign keys: its checks are in-process index lookups.

ALTER TABLE orders DROP CONSTRAINT orders_account_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_account_id_fkey;

CREATE OR REPLACE FUNCTION orders_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    WITH named AS (SELECT DISTINCT account_id FROM new_orders),
    bumped AS (UPDATE accounts SET orders_version = orders_version + 1 WHERE id IN (SELECT account_id FROM named) RETURNING 1)
    SELECT (SELECT count(*) FROM named) - (SELECT count(*) FROM bumped) INTO missing;
  ELSIF TG_OP = 'UPDATE' THEN
    WITH named AS (SELECT account_id FROM old_orders UNION SELECT account_id FROM new_orders),
    bumped AS (UPDATE accounts SET orders_version = orders_version + 1 WHERE id IN (SELECT account_id FROM named) RETURNING 1)
    SELECT (SELECT count(*) FROM named) - (SELECT count(*) FROM bumped) INTO missing;
  ELSE
    UPDATE accounts SET orders_version = orders_version + 1
    WHERE id IN (SELECT account_id FROM old_orders);
    missing := 0;
  END IF;
  IF missing > 0 THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'an order names an account that does not exist',
      TABLE = 'orders', CONSTRAINT = 'orders_account_id_fkey';
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION events_check_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing bigint;
BEGIN
  WITH named AS (SELECT DISTINCT account_id FROM new_events),
  held AS (SELECT a.id FROM accounts a WHERE a.id IN (SELECT account_id FROM named) FOR KEY SHARE)
  SELECT (SELECT count(*) FROM named) - (SELECT count(*) FROM held) INTO missing;
  IF missing > 0 THEN
    RAISE foreign_key_violation USING
      MESSAGE = 'an event names an account that does not exist',
      TABLE = 'events', CONSTRAINT = 'events_account_id_fkey';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_check_accounts_after_insert AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_check_accounts();
CREATE TRIGGER events_check_accounts_after_update AFTER UPDATE ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_check_accounts();

CREATE FUNCTION accounts_keep_dependents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM orders WHERE account_id = OLD.id) OR EXISTS (SELECT 1 FROM events WHERE account_id = OLD.id) THEN
    RAISE foreign_key_violation USING
      MESSAGE = format('account %s still has orders or events', OLD.id),
      TABLE = 'accounts';
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER accounts_keep_dependents BEFORE DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_keep_dependents();
