-- Issue 27, teammates and roles (docs/portal.md, "Team and roles"). A user
-- may belong to several accounts, with one role in each: owner (everything,
-- members included), developer (keys, webhooks, orders, audit) or viewer
-- (read only, never a secret). users.account_id stays the account the user
-- was created into; what a user may do is decided by memberships only.
-- Every user who exists at this migration becomes an owner of their account,
-- which is what they were (every member could do everything).
CREATE TABLE memberships (
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  role       TEXT    NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  created_at TEXT    NOT NULL,
  PRIMARY KEY (user_id, account_id)
) STRICT;

CREATE INDEX memberships_account ON memberships (account_id, role);

INSERT INTO memberships (user_id, account_id, role, created_at) SELECT id, account_id, 'owner', created_at FROM users;

-- The account a session works in (the header's account switcher changes it).
-- A session is honoured only while its user is a member of that account.
-- SQLite cannot add a NOT NULL column with a REFERENCES clause; every
-- session is given one here and every new session gets one.
ALTER TABLE user_sessions ADD COLUMN account_id INTEGER REFERENCES accounts (id);
UPDATE user_sessions SET account_id = (SELECT account_id FROM users WHERE users.id = user_sessions.user_id);
CREATE INDEX user_sessions_account ON user_sessions (account_id, user_id);

-- Invitations to join an account with a role: by email from the portal's
-- Team page (email set, mailed), or an operator's link from
-- `store-orders users invite` (email NULL: whoever holds the link). Only the
-- SHA-256 (hex) of the token is kept. An invitation is pending while
-- accepted_at and revoked_at are NULL and expires_at is ahead.
CREATE TABLE invitations (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  token_hash  TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  account_id  INTEGER NOT NULL REFERENCES accounts (id),
  email       TEXT    CHECK (email IS NULL OR length(email) BETWEEN 3 AND 254),
  role        TEXT    NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  invited_by  INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at  TEXT    NOT NULL,
  expires_at  TEXT    NOT NULL,
  accepted_at TEXT,
  accepted_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
  revoked_at  TEXT
) STRICT;

CREATE INDEX invitations_account ON invitations (account_id, id);

-- The operator's invitations still outstanding move over, as owners (what
-- joining meant until now).
INSERT INTO invitations (token_hash, account_id, role, created_at, expires_at)
  SELECT hash, account_id, 'owner', created_at, expires_at FROM user_tokens WHERE kind = 'invite' AND used_at IS NULL;
DELETE FROM user_tokens WHERE kind = 'invite';
