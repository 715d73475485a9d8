-- Issue 27: email verification and change of email (docs/portal.md, "Email
-- verification"). users.email_verified_at: when the user proved they read
-- mail at their address. Users who exist at this migration were created by
-- the operator or signed up before verification existed: they count as
-- verified (since they were created), so PORTAL_REQUIRE_VERIFIED_EMAIL=true
-- never locks out an account that worked before.
ALTER TABLE users ADD COLUMN email_verified_at TEXT;
UPDATE users SET email_verified_at = created_at;

-- Two new kinds of one-time token, and the address each is about:
-- `verify-email` confirms the user's address `email` (it does nothing once
-- the address changed), `change-email` makes `email` the user's address
-- when followed. A CHECK cannot be altered in SQLite, so the table is
-- rebuilt by the documented procedure (sqlite.org/lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"): create the new table, copy,
-- drop, rename. It runs inside the migration's transaction, where
-- PRAGMA foreign_keys cannot change; nothing references user_tokens, so
-- dropping it violates no foreign key, and the copy keeps every row's own
-- references (checked below). user_tokens has no index besides its key.
CREATE TABLE user_tokens_new (
  hash       TEXT    PRIMARY KEY CHECK (length(hash) = 64),
  kind       TEXT    NOT NULL CHECK (kind IN ('invite', 'reset', 'verify-email', 'change-email')),
  account_id INTEGER REFERENCES accounts (id),
  user_id    INTEGER REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT    NOT NULL,
  expires_at TEXT    NOT NULL,
  used_at    TEXT,
  origin     TEXT    NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'user')),
  email      TEXT    CHECK (email IS NULL OR length(email) BETWEEN 3 AND 254),
  CHECK ((kind = 'invite') = (account_id IS NOT NULL) AND (kind <> 'invite') = (user_id IS NOT NULL)),
  CHECK ((kind IN ('verify-email', 'change-email')) = (email IS NOT NULL))
) STRICT;

INSERT INTO user_tokens_new (hash, kind, account_id, user_id, created_at, expires_at, used_at, origin)
  SELECT hash, kind, account_id, user_id, created_at, expires_at, used_at, origin FROM user_tokens;
DROP TABLE user_tokens;
ALTER TABLE user_tokens_new RENAME TO user_tokens;
