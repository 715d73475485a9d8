-- Mirrors migrations/sqlite/0026-order-history.sql: an order's history on
-- the portal's order page (/orders/<id>, src/orders/history/, docs/portal.md).

-- The requests naming an order (/v1/store/orders/<id>…, /v2/store/orders/<id>…),
-- newest first, by the order id the path starts with. Partial: a request
-- whose path names no order (the listing, every other route) is not in it.
-- src/storage/postgres/postgres-order-history.ts repeats the expression and
-- the predicate exactly, so that the planner matches them.
CREATE INDEX request_logs_account_order ON request_logs (
  account_id,
  (substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789')))),
  at DESC,
  id DESC
) WHERE path ~ '^/v[0-9]/store/orders/[0-9]';

-- An order's events ("order:<id>"), and any subject's, by position: the
-- feed filtered by subject. The primary key (account_id, position) would
-- read every event of the account.
CREATE INDEX events_account_subject ON events (account_id, subject, position);
