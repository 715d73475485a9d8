-- Issue 27: re-authentication for sensitive actions (docs/portal.md,
-- "Re-authentication"). authenticated_at is when the session's user last
-- proved who they are: the sign-in, or a later confirmation with their
-- password or a passkey. NULL (sessions from before this migration) reads
-- as the sign-in (created_at). Ending sessions, team changes and the
-- password change proceed within 10 minutes of it, else ask to confirm.
ALTER TABLE user_sessions ADD COLUMN authenticated_at TEXT;
