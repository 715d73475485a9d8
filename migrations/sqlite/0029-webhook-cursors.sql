-- Webhook deliveries without a row per event at commit (issue 26): each
-- endpoint keeps a cursor over its account's events, the position up to
-- which its deliveries exist. The change's transaction writes its events
-- only; the delivery engine's claim inserts the deliveries of the events
-- after each enabled endpoint's cursor and moves the cursor on, in one
-- transaction (src/storage/sqlite/sqlite-webhook-cursors.ts).
--
-- Existing endpoints start at their account's last position: every event
-- before now was fanned out at its commit, and those rows stay as they are.
ALTER TABLE webhook_endpoints ADD COLUMN delivered_through INTEGER NOT NULL DEFAULT 0;
UPDATE webhook_endpoints SET delivered_through = (SELECT a.events_position FROM accounts a WHERE a.id = webhook_endpoints.account_id);
