-- Portal users (issue 17); mirrors migrations/sqlite/0007-portal-users.sql.
-- The email is stored normalised (trimmed, lower case); only an Argon2id hash
-- of the password is kept.
CREATE TABLE users (
  id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    bigint      NOT NULL REFERENCES accounts (id),
  email         text        NOT NULL UNIQUE CHECK (char_length(email) BETWEEN 3 AND 254),
  password_hash text        NOT NULL,
  created_at    timestamptz NOT NULL,
  disabled_at   timestamptz
);

CREATE INDEX users_account ON users (account_id, id);

-- Server-side sessions: the cookie holds a random id, this table only its
-- SHA-256 (hex). expires_at is the absolute end; last_seen_at drives the idle timeout.
CREATE TABLE user_sessions (
  id_hash      text        PRIMARY KEY CHECK (char_length(id_hash) = 64),
  user_id      bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);

CREATE INDEX user_sessions_user ON user_sessions (user_id);

-- One-time links an operator hands out: an invitation to join an account,
-- or a password reset for a user. Only the SHA-256 of the token is kept.
CREATE TABLE user_tokens (
  hash       text        PRIMARY KEY CHECK (char_length(hash) = 64),
  kind       text        NOT NULL CHECK (kind IN ('invite', 'reset')),
  account_id bigint      REFERENCES accounts (id),
  user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  CHECK ((kind = 'invite') = (account_id IS NOT NULL) AND (kind = 'reset') = (user_id IS NOT NULL))
);
