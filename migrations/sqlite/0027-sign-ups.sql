-- Issue 27: sign-up that does not reveal who has an account (docs/portal.md,
-- "Sign-up"). A sign-up is pending until the link mailed to its address is
-- followed; only then are the account, the user and their membership
-- created (storage/…-sign-ups-repository.ts, in one transaction that
-- deletes the row). One pending sign-up per address: a newer one replaces
-- it, and with it the token (the earlier link stops working).
--   token_hash:    SHA-256 (hex) of the link's token; the token is never stored.
--   password_hash: the Argon2id hash of the password chosen at sign-up.
--   expires_at:    ISO 8601 UTC text; rows past it are dead and pruned as
--                  sign-ups arrive.
CREATE TABLE sign_ups (
  token_hash    TEXT PRIMARY KEY CHECK (length(token_hash) = 64),
  email         TEXT NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 254),
  password_hash TEXT NOT NULL,
  store_name    TEXT NOT NULL CHECK (length(store_name) BETWEEN 1 AND 200),
  created_at    TEXT NOT NULL,
  expires_at    TEXT NOT NULL
) STRICT;

CREATE INDEX sign_ups_expiry ON sign_ups (expires_at);
