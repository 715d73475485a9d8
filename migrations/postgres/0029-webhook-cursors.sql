-- Mirrors migrations/sqlite/0029-webhook-cursors.sql: webhook deliveries
-- without a row per event at commit (issue 26). Each endpoint keeps a cursor
-- over its account's events, the position up to which its deliveries exist;
-- the delivery engine's claim inserts the deliveries of the events after
-- each enabled endpoint's cursor and moves the cursor on by compare-and-set,
-- in one statement (src/storage/postgres/postgres-webhook-cursors.ts).
--
-- Existing endpoints start at their account's last position: every event
-- before now was fanned out at its commit, and those rows stay as they are.
-- The account rows are locked first, so that no change writing events
-- commits between the read of its position and this migration's commit.
ALTER TABLE webhook_endpoints ADD COLUMN delivered_through bigint NOT NULL DEFAULT 0;
UPDATE webhook_endpoints w SET delivered_through = a.events_position
FROM (SELECT id, events_position FROM accounts WHERE id IN (SELECT account_id FROM webhook_endpoints) ORDER BY id FOR NO KEY UPDATE) a
WHERE a.id = w.account_id;
