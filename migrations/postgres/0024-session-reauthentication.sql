-- Mirrors migrations/sqlite/0024-session-reauthentication.sql: when the
-- session's user last proved who they are (sign-in or a confirmation);
-- NULL reads as the sign-in (created_at).
ALTER TABLE user_sessions ADD COLUMN authenticated_at timestamptz;
