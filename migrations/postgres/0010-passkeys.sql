-- Passkeys (issue 17); mirrors migrations/sqlite/0010-passkeys.sql.
-- credential_id and public_key are base64url text as @simplewebauthn gives
-- them; a public key is no secret. sign_count is the authenticator's counter.
CREATE TABLE user_passkeys (
  id            bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id text        NOT NULL UNIQUE CHECK (char_length(credential_id) BETWEEN 1 AND 1400),
  public_key    text        NOT NULL,
  sign_count    bigint      NOT NULL CHECK (sign_count >= 0),
  transports    text        NOT NULL,
  name          text        NOT NULL,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz
);

CREATE INDEX user_passkeys_user ON user_passkeys (user_id, id);

-- Outstanding WebAuthn challenges, by their SHA-256: each is used once
-- (deleted when used) by whichever process receives the answer.
CREATE TABLE passkey_challenges (
  hash       text        PRIMARY KEY CHECK (char_length(hash) = 64),
  purpose    text        NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  user_id    bigint      REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
