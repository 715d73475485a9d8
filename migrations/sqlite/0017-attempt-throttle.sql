-- The portal's attempt throttle (sign-in, sign-up, password reset,
-- verification), shared by every process on this database: one row per key
-- and fixed window. key: HMAC-SHA-256 (hex) of the scope and the value
-- (an email or a client address) under a server secret, so the table keeps
-- no list of attempted emails. ends_at: ISO 8601 UTC text; rows past it are
-- dead and pruned.
CREATE TABLE attempt_throttle (
  key     TEXT    PRIMARY KEY CHECK (length(key) = 64),
  count   INTEGER NOT NULL CHECK (count >= 0),
  ends_at TEXT    NOT NULL
) STRICT;

CREATE INDEX attempt_throttle_ends ON attempt_throttle (ends_at);
