-- Mirrors migrations/sqlite/0028-account-deletion.sql: when the account was
-- deleted (kept, with its history; what could act in it ended); NULL: not deleted.
ALTER TABLE accounts ADD COLUMN deleted_at timestamptz;
