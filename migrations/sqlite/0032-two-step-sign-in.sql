-- Two-step sign-in (docs/portal.md): a code from an authenticator app (TOTP,
-- RFC 6238) after the password, or one of the user's one-time recovery
-- codes (users/two-step/two-step-repository.ts is the contract).
--   sealed_secret: the authenticator's shared secret sealed with a secret
--                  box (secrets/secret-box.ts), never in clear.
--   confirmed_at:  when a first code confirmed the set-up; NULL while it
--                  waits for one (two-step sign-in is off until then).
--   last_step:     the highest time step (Unix seconds / 30) whose code was
--                  accepted, 0 before any: a code is accepted only above it,
--                  by one conditional UPDATE, so it is used at most once.
CREATE TABLE user_authenticators (
  user_id       INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  sealed_secret TEXT    NOT NULL,
  confirmed_at  TEXT,
  last_step     INTEGER NOT NULL DEFAULT 0 CHECK (last_step >= 0),
  created_at    TEXT    NOT NULL
) STRICT;

-- A user's recovery codes, by their hash only; each is used once (used_at).
CREATE TABLE user_recovery_codes (
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  TEXT    NOT NULL CHECK (length(code_hash) BETWEEN 1 AND 128),
  created_at TEXT    NOT NULL,
  used_at    TEXT,
  PRIMARY KEY (user_id, code_hash)
) STRICT;

-- Sign-ins whose password was right and which wait for a code, by the
-- SHA-256 (hex) of the token the browser holds (the token is never stored).
-- Each is consumed once; rows past expires_at are dead and pruned as
-- pending sign-ins arrive.
CREATE TABLE pending_sign_ins (
  token_hash TEXT    PRIMARY KEY CHECK (length(token_hash) = 64),
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT    NOT NULL,
  expires_at TEXT    NOT NULL
) STRICT;

CREATE INDEX pending_sign_ins_user ON pending_sign_ins (user_id);
CREATE INDEX pending_sign_ins_expiry ON pending_sign_ins (expires_at);
