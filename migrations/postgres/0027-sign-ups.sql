-- Mirrors migrations/sqlite/0027-sign-ups.sql: sign-ups pending until the
-- link mailed to their address is followed (docs/portal.md, "Sign-up"); one
-- per address, a newer one replacing it. Only the token's SHA-256 and the
-- password's Argon2id hash are stored; rows past expires_at are dead and
-- pruned as sign-ups arrive.
CREATE TABLE sign_ups (
  token_hash    text        PRIMARY KEY CHECK (char_length(token_hash) = 64),
  email         text        NOT NULL UNIQUE CHECK (char_length(email) BETWEEN 3 AND 254),
  password_hash text        NOT NULL,
  store_name    text        NOT NULL CHECK (char_length(store_name) BETWEEN 1 AND 200),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL
);

CREATE INDEX sign_ups_expiry ON sign_ups (expires_at);
