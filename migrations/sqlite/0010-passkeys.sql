-- Passkeys (issue 17): WebAuthn credentials a portal user signs in with.
-- credential_id and public_key are base64url text as @simplewebauthn gives
-- them; a public key is no secret. sign_count is the authenticator's counter.
CREATE TABLE user_passkeys (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id TEXT    NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1400),
  public_key    TEXT    NOT NULL,
  sign_count    INTEGER NOT NULL CHECK (sign_count >= 0),
  transports    TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  created_at    TEXT    NOT NULL,
  last_used_at  TEXT
) STRICT;

CREATE INDEX user_passkeys_user ON user_passkeys (user_id, id);

-- Outstanding WebAuthn challenges, by their SHA-256: each is used once
-- (deleted when used) by whichever process receives the answer.
CREATE TABLE passkey_challenges (
  hash       TEXT    PRIMARY KEY CHECK (length(hash) = 64),
  purpose    TEXT    NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  user_id    INTEGER REFERENCES users (id) ON DELETE CASCADE,
  expires_at TEXT    NOT NULL
) STRICT;
