-- Mirrors migrations/sqlite/0031-webhook-endpoint-backlog.sql: an endpoint
-- disabled and enabled again keeps the events it had not been given yet
-- (issue 26, at least once). The position at the disabling is kept
-- (disabled_through); enabling makes the deliveries of the events after the
-- cursor up to it, in order, in the enabling statement, then moves the
-- cursor to the account's last committed position (events of one account
-- commit in position order, postgres-events.ts), so the events written
-- while it was disabled are not sent. One trigger for every path that
-- disables or enables an endpoint; the row lock of the UPDATE orders two
-- enablings of one endpoint, and the second sees it enabled already.
--
-- Endpoints disabled before this migration keep everything up to now (at
-- least once: an event too many rather than one lost).
ALTER TABLE webhook_endpoints ADD COLUMN disabled_through bigint;
UPDATE webhook_endpoints w SET disabled_through = a.events_position
FROM accounts a WHERE a.id = w.account_id AND w.status = 'disabled';

CREATE FUNCTION webhook_endpoints_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'enabled' AND NEW.status = 'disabled' THEN
    NEW.disabled_through := (SELECT a.events_position FROM accounts a WHERE a.id = NEW.account_id);
  ELSIF OLD.status = 'disabled' AND NEW.status = 'enabled' THEN
    INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
    SELECT NEW.id, e.id, e.subject, 'pending', e.created_at, e.created_at
    FROM events e
    WHERE e.account_id = NEW.account_id AND e.position > OLD.delivered_through AND e.position <= coalesce(OLD.disabled_through, OLD.delivered_through)
      AND (NEW.event_types IS NULL OR (' ' || NEW.event_types || ' ') LIKE '% ' || e.type || ' %')
    ORDER BY e.position;
    NEW.delivered_through := (SELECT a.events_position FROM accounts a WHERE a.id = NEW.account_id);
    NEW.disabled_through := NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER webhook_endpoints_status BEFORE UPDATE OF status ON webhook_endpoints
FOR EACH ROW EXECUTE FUNCTION webhook_endpoints_status_changed();
