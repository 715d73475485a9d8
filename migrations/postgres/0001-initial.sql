-- Mirrors migrations/sqlite/0001-initial.sql. Timestamps are timestamptz;
-- the adapter formats them as ISO 8601 UTC with milliseconds, like SQLite's text.

-- Accounts own API keys and orders.
CREATE TABLE accounts (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);

-- Only the SHA-256 hash of a key is stored, with its visible start.
CREATE TABLE api_keys (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint      NOT NULL REFERENCES accounts (id),
  name       text,
  hash       text        NOT NULL UNIQUE CHECK (char_length(hash) = 64),
  start      text        NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

CREATE INDEX api_keys_account ON api_keys (account_id, id);

-- id and pet_id are int64. An id is chosen by the adapter when the caller
-- gives none (largest + 1, as SQLite does), so there is no sequence to drift
-- behind explicitly given ids.
CREATE TABLE orders (
  id           bigint      PRIMARY KEY,
  account_id   bigint      NOT NULL REFERENCES accounts (id),
  pet_id       bigint,
  quantity     integer,
  ship_date    timestamptz,
  complete     boolean     NOT NULL DEFAULT false,
  status       text        NOT NULL CHECK (status IN ('pending', 'shipped', 'cancelled')),
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);

-- Serves the v1 listing (an account's orders that are not cancelled, by id).
CREATE INDEX orders_account_active ON orders (account_id, id) WHERE status <> 'cancelled';
CREATE INDEX orders_account ON orders (account_id, id);
