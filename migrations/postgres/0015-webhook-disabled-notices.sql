-- Mirrors migrations/sqlite/0015-webhook-disabled-notices.sql: the portal's
-- notice of an endpoint the service disabled (its receiver answered 410, or
-- every attempt failed for 5 days), shown on every page of the account until
-- someone acknowledges it (docs/webhooks.md, "Failure notices").
--   system_disabled_at:     when the service last disabled it; set, and the
--                           acknowledgement cleared, in the transaction that
--                           disables it, so each disabling is a new notice.
--   notice_acknowledged_at: when a user of the account acknowledged that
--   notice_acknowledged_by: notice, and who (the audit trail has it too).
-- A notice is due while status = 'disabled', disabled_reason is set (enabling
-- clears it) and it is not acknowledged: read through webhook_endpoints_account.
ALTER TABLE webhook_endpoints ADD COLUMN system_disabled_at timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN notice_acknowledged_at timestamptz;
ALTER TABLE webhook_endpoints ADD COLUMN notice_acknowledged_by bigint REFERENCES users (id);

-- Endpoints the service disabled before this release: the time from their
-- audit entry while the trail still holds it (the account's index bounds the search).
UPDATE webhook_endpoints w SET system_disabled_at = (
  SELECT max(a.at) FROM audit_events a
  WHERE a.account_id = w.account_id AND a.action = 'webhook_endpoint_disabled' AND a.actor_kind = 'system'
    AND a.target_kind = 'webhook_endpoint' AND a.target_id = w.id)
WHERE w.status = 'disabled' AND w.disabled_reason IS NOT NULL;
