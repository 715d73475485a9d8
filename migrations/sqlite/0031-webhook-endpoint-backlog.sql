-- An endpoint disabled and enabled again keeps the events it had not been
-- given yet (issue 26, at least once). With the cursors of 0029, enabling
-- moved the cursor to the account's last position, so the events committed
-- before the disabling that no claim had made into deliveries yet (a slow
-- receiver's backlog: a claim makes at most 100 at a time) were never
-- delivered, nor reachable by recover.
--
-- Now the position at the disabling is kept (disabled_through), and
-- enabling makes the deliveries of the events after the cursor up to it, in
-- order, in the enabling statement, then moves the cursor to the account's
-- last position: the events written while the endpoint was disabled are not
-- sent, as before. Triggers, so that every path that disables an endpoint
-- (a PATCH, a 410, five days of failures, an account deleted) and every
-- path that enables one keeps the rule, on both backends alike
-- (migrations/postgres/0031-webhook-endpoint-backlog.sql).
--
-- Endpoints disabled before this migration: where they were at the
-- disabling is not known, so they keep everything up to now (at least once:
-- an event too many rather than one lost).
ALTER TABLE webhook_endpoints ADD COLUMN disabled_through INTEGER;
UPDATE webhook_endpoints SET disabled_through = (SELECT a.events_position FROM accounts a WHERE a.id = webhook_endpoints.account_id)
WHERE status = 'disabled';

CREATE TRIGGER webhook_endpoints_disabled AFTER UPDATE OF status ON webhook_endpoints
WHEN OLD.status = 'enabled' AND NEW.status = 'disabled'
BEGIN
  UPDATE webhook_endpoints SET disabled_through = (SELECT a.events_position FROM accounts a WHERE a.id = NEW.account_id) WHERE id = NEW.id;
END;

CREATE TRIGGER webhook_endpoints_enabled AFTER UPDATE OF status ON webhook_endpoints
WHEN OLD.status = 'disabled' AND NEW.status = 'enabled'
BEGIN
  INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
  SELECT NEW.id, e.id, e.subject, 'pending', e.created_at, e.created_at
  FROM events e
  WHERE e.account_id = NEW.account_id AND e.position > OLD.delivered_through AND e.position <= coalesce(OLD.disabled_through, OLD.delivered_through)
    AND (NEW.event_types IS NULL OR (' ' || NEW.event_types || ' ') LIKE '% ' || e.type || ' %')
  ORDER BY e.position;
  UPDATE webhook_endpoints SET delivered_through = (SELECT a.events_position FROM accounts a WHERE a.id = NEW.account_id), disabled_through = NULL
  WHERE id = NEW.id;
END;
