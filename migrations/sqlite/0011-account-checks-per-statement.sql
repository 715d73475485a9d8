-- Mirrors migrations/postgres/0011-account-checks-per-statement.sql, which
-- replaces PostgreSQL's per-row foreign-key checks of orders' and events'
-- accounts with one check per statement. SQLite keeps its foreign keys: its
-- checks are in-process index lookups, and dropping one would mean copying
-- the whole table into a new one. Nothing changes here; the file keeps both
-- backends' schema versions equal.
SELECT 1;
