-- Issue 27: the Sessions list in Settings. Each session gets an opaque
-- public handle (128 random bits, hex) for its End button: the id's hash
-- never leaves the server. device is a short description parsed from the
-- User-Agent at sign-in ("Firefox on Linux"), address the client address as
-- the audit trail records it. Sessions from before this migration get a
-- handle here and an empty device and address.
ALTER TABLE user_sessions ADD COLUMN handle TEXT CHECK (length(handle) = 32);
ALTER TABLE user_sessions ADD COLUMN device TEXT NOT NULL DEFAULT '';
ALTER TABLE user_sessions ADD COLUMN address TEXT NOT NULL DEFAULT '';
UPDATE user_sessions SET handle = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX user_sessions_handle ON user_sessions (handle);
