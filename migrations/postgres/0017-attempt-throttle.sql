-- The portal's attempt throttle; mirrors migrations/sqlite/0017-attempt-throttle.sql.
-- key: HMAC-SHA-256 (hex) of the scope and the value (an email or a client
-- address) under a server secret, so the table keeps no list of attempted
-- emails. Rows past ends_at are dead and pruned.
CREATE TABLE attempt_throttle (
  key     text        PRIMARY KEY CHECK (char_length(key) = 64),
  count   integer     NOT NULL CHECK (count >= 0),
  ends_at timestamptz NOT NULL
);

CREATE INDEX attempt_throttle_ends ON attempt_throttle (ends_at);
