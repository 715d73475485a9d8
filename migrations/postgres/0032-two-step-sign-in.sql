-- Mirrors migrations/sqlite/0032-two-step-sign-in.sql: two-step sign-in
-- (docs/portal.md). A user's authenticator app (its shared secret sealed,
-- never in clear; confirmed_at NULL while the set-up waits for a first code;
-- last_step the highest time step accepted, so a code is used at most once),
-- their recovery codes by hash only, and the sign-ins waiting for a code by
-- the SHA-256 of the browser's token, pruned past expires_at as they arrive.
CREATE TABLE user_authenticators (
  user_id       bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  sealed_secret text        NOT NULL,
  confirmed_at  timestamptz,
  last_step     bigint      NOT NULL DEFAULT 0 CHECK (last_step >= 0),
  created_at    timestamptz NOT NULL
);

CREATE TABLE user_recovery_codes (
  user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  text        NOT NULL CHECK (char_length(code_hash) BETWEEN 1 AND 128),
  created_at timestamptz NOT NULL,
  used_at    timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

CREATE TABLE pending_sign_ins (
  token_hash text        PRIMARY KEY CHECK (char_length(token_hash) = 64),
  user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE INDEX pending_sign_ins_user ON pending_sign_ins (user_id);
CREATE INDEX pending_sign_ins_expiry ON pending_sign_ins (expires_at);
