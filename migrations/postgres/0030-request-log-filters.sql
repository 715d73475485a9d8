-- Issue 28: a filtered page of the request logs (GET /v2/request-logs, the
-- portal's Logs page) in under 50 ms on a 14-day log of 10 million rows,
-- measured by `npm run bench -- --only request-logs-pg` (BENCHMARKS.md, "Tenth
-- session"). Mirrored by migrations/sqlite/0030-request-log-filters.sql, which
-- changes nothing there.
--
-- A page is a walk of one account's entries newest first that stops after
-- `limit` matches, or, for a filter that matches few entries, a read of just
-- those entries and a sort of them. The planner picks between the two by
-- the column statistics; what each needs:

-- The walk checks the filters in the index itself (status, key, method, path
-- prefix: `starts_with` becomes a range on the text_pattern_ops column),
-- fetching only the rows that match from the table: a filter that matches one
-- entry in a thousand reads some 50,000 index entries for a page, not 50,000
-- rows. Replaces 0023's (account_id, at DESC, id DESC), which it extends.
DROP INDEX request_logs_account_time;
CREATE INDEX request_logs_account_time ON request_logs (account_id, at DESC, id DESC, status, key_id, method, path text_pattern_ops);

-- The pages of errors: the status checked in the index too (a page of 5xx
-- walks the errors only, and of those reads only the 5xx rows).
DROP INDEX request_logs_account_errors;
CREATE INDEX request_logs_account_errors ON request_logs (account_id, at DESC, id DESC, status) WHERE status >= 400;

-- A filter that matches few entries or none (a key that made no request, a
-- status or method never answered, a path nobody used) reads only its
-- entries through one of these, instead of walking the whole account. They
-- are short (few distinct values: B-tree deduplication keeps one copy of a
-- value for many rows), and unordered by time: used when the planner expects
-- few rows, which the column statistics tell it (below).
CREATE INDEX request_logs_account_status ON request_logs (account_id, status);
CREATE INDEX request_logs_account_key ON request_logs (account_id, key_id);
CREATE INDEX request_logs_account_method ON request_logs (account_id, method);
-- The path prefix: starts_with(path, $prefix) is a range of this index
-- (text_pattern_ops: byte order, whatever the database's collation).
CREATE INDEX request_logs_account_path ON request_logs (account_id, path text_pattern_ops);

-- A prefix's share of the rows is estimated from the column's histogram: at
-- the default 100 buckets every prefix rarer than 1 % looks alike (about 300
-- rows), and the planner read the 9,000 rows of a prefix one by one (180 ms)
-- instead of walking. 1,000 buckets tell 0.1 % from 0.01 %. A key's share
-- comes from the list of the column's most common values, here up to 1,000
-- long (a key missing from it is estimated from what the list leaves over).
-- Statuses and methods have fewer values than the default list holds.
ALTER TABLE request_logs ALTER COLUMN path SET STATISTICS 1000;
ALTER TABLE request_logs ALTER COLUMN key_id SET STATISTICS 1000;
ANALYZE request_logs;
