-- Mirrors migrations/sqlite/0020-session-list.sql: each session's opaque
-- public handle (for its End button), device description and client address.
ALTER TABLE user_sessions ADD COLUMN handle text CHECK (char_length(handle) = 32);
ALTER TABLE user_sessions ADD COLUMN device text NOT NULL DEFAULT '';
ALTER TABLE user_sessions ADD COLUMN address text NOT NULL DEFAULT '';
UPDATE user_sessions SET handle = replace(gen_random_uuid()::text, '-', '');
ALTER TABLE user_sessions ALTER COLUMN handle SET NOT NULL;
CREATE UNIQUE INDEX user_sessions_handle ON user_sessions (handle);
