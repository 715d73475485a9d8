-- Mirrors migrations/sqlite/0022-memberships.sql: memberships (user ×
-- account × role), the account each session works in, and invitations with
-- a role. Every existing user becomes an owner of their account.
CREATE TABLE memberships (
  user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id bigint      NOT NULL REFERENCES accounts (id),
  role       text        NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, account_id)
);

CREATE INDEX memberships_account ON memberships (account_id, role);

INSERT INTO memberships (user_id, account_id, role, created_at) SELECT id, account_id, 'owner', created_at FROM users;

ALTER TABLE user_sessions ADD COLUMN account_id bigint REFERENCES accounts (id);
UPDATE user_sessions SET account_id = users.account_id FROM users WHERE users.id = user_sessions.user_id;
ALTER TABLE user_sessions ALTER COLUMN account_id SET NOT NULL;
CREATE INDEX user_sessions_account ON user_sessions (account_id, user_id);

CREATE TABLE invitations (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash  text        NOT NULL UNIQUE CHECK (char_length(token_hash) = 64),
  account_id  bigint      NOT NULL REFERENCES accounts (id),
  email       text        CHECK (email IS NULL OR char_length(email) BETWEEN 3 AND 254),
  role        text        NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  invited_by  bigint      REFERENCES users (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by bigint      REFERENCES users (id) ON DELETE SET NULL,
  revoked_at  timestamptz
);

CREATE INDEX invitations_account ON invitations (account_id, id);

INSERT INTO invitations (token_hash, account_id, role, created_at, expires_at)
  SELECT hash, account_id, 'owner', created_at, expires_at FROM user_tokens WHERE kind = 'invite' AND used_at IS NULL;
DELETE FROM user_tokens WHERE kind = 'invite';
