-- Portal users (issue 17): people who sign in to the self-service portal.
-- Each belongs to one account. The email is stored normalised (trimmed,
-- lower case); only an Argon2id hash of the password is kept.
CREATE TABLE users (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id    INTEGER NOT NULL REFERENCES accounts (id),
  email         TEXT    NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 254),
  password_hash TEXT    NOT NULL,
  created_at    TEXT    NOT NULL,
  disabled_at   TEXT
) STRICT;

CREATE INDEX users_account ON users (account_id, id);

-- Server-side sessions: the cookie holds a random id, this table only its
-- SHA-256 (hex). expires_at is the absolute end; last_seen_at drives the idle timeout.
CREATE TABLE user_sessions (
  id_hash      TEXT    PRIMARY KEY CHECK (length(id_hash) = 64),
  user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at   TEXT    NOT NULL,
  last_seen_at TEXT    NOT NULL,
  expires_at   TEXT    NOT NULL
) STRICT;

CREATE INDEX user_sessions_user ON user_sessions (user_id);

-- One-time links an operator hands out: an invitation to join an account,
-- or a password reset for a user. Only the SHA-256 of the token is kept.
CREATE TABLE user_tokens (
  hash       TEXT    PRIMARY KEY CHECK (length(hash) = 64),
  kind       TEXT    NOT NULL CHECK (kind IN ('invite', 'reset')),
  account_id INTEGER REFERENCES accounts (id),
  user_id    INTEGER REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT    NOT NULL,
  expires_at TEXT    NOT NULL,
  used_at    TEXT,
  CHECK ((kind = 'invite') = (account_id IS NOT NULL) AND (kind = 'reset') = (user_id IS NOT NULL))
) STRICT;
