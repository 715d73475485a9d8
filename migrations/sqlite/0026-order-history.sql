-- An order's history on the portal's order page (/orders/<id>,
-- src/orders/history/, docs/portal.md): the requests whose path names the
-- order, and its events. Mirrored by migrations/postgres/0026-order-history.sql.

-- The requests naming an order (/v1/store/orders/<id>…, /v2/store/orders/<id>…),
-- newest first, by the order id the path starts with. Partial: a request
-- whose path names no order (the listing, every other route) pays only the
-- GLOB, not a B-tree insert (each index costs the serving process's writes:
-- docs/request-logs.md). The expression is the leading digits after
-- "/vN/store/orders/"; src/storage/sqlite/sqlite-order-history.ts repeats it
-- exactly, as SQLite uses an expression index only for the same expression.
CREATE INDEX request_logs_account_order ON request_logs (
  account_id,
  substr(path, 18, length(substr(path, 18)) - length(ltrim(substr(path, 18), '0123456789'))),
  at,
  id
) WHERE path GLOB '/v[0-9]/store/orders/[0-9]*';

-- An order's events ("order:<id>"), and any subject's, by position: the
-- feed filtered by subject. The primary key (account_id, position) would
-- read every event of the account.
CREATE INDEX events_account_subject ON events (account_id, subject, position);
