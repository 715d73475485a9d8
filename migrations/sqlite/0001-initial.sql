-- Accounts own API keys and orders.
CREATE TABLE accounts (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at TEXT    NOT NULL
) STRICT;

-- Only the SHA-256 hash of a key is stored, with its visible start.
CREATE TABLE api_keys (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  name       TEXT,
  hash       TEXT    NOT NULL UNIQUE CHECK (length(hash) = 64),
  start      TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  revoked_at TEXT
) STRICT;

CREATE INDEX api_keys_account ON api_keys (account_id, id);

-- id and pet_id are int64. Timestamps are ISO 8601 UTC text with milliseconds,
-- which sorts in time order.
CREATE TABLE orders (
  id           INTEGER PRIMARY KEY,
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  pet_id       INTEGER,
  quantity     INTEGER,
  ship_date    TEXT,
  complete     INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1)),
  status       TEXT    NOT NULL CHECK (status IN ('pending', 'shipped', 'cancelled')),
  created_at   TEXT    NOT NULL,
  updated_at   TEXT    NOT NULL
) STRICT;

-- Serves the v1 listing (an account's orders that are not cancelled, by id).
CREATE INDEX orders_account_active ON orders (account_id, id) WHERE status <> 'cancelled';
CREATE INDEX orders_account ON orders (account_id, id);
