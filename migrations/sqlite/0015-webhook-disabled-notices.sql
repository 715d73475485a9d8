-- Mirrors migrations/postgres/0015-webhook-disabled-notices.sql: the portal's
-- notice of an endpoint the service disabled (410, or failing for 5 days):
-- when the service last disabled it, and when and by whom that notice was
-- acknowledged (cleared again by the next disabling).
ALTER TABLE webhook_endpoints ADD COLUMN system_disabled_at TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN notice_acknowledged_at TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN notice_acknowledged_by INTEGER REFERENCES users (id);

-- Endpoints the service disabled before this release: the time from their audit entry, while the trail holds it.
UPDATE webhook_endpoints SET system_disabled_at = (
  SELECT max(a.at) FROM audit_events a
  WHERE a.account_id = webhook_endpoints.account_id AND a.action = 'webhook_endpoint_disabled' AND a.actor_kind = 'system'
    AND a.target_kind = 'webhook_endpoint' AND a.target_id = webhook_endpoints.id)
WHERE status = 'disabled' AND disabled_reason IS NOT NULL;
