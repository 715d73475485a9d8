-- Mirrors migrations/sqlite/0002-pets.sql. Pets belong to an account, like
-- orders; id is an int64 chosen by the adapter when the operator gives none.
CREATE TABLE pets (
  id         bigint      PRIMARY KEY,
  account_id bigint      NOT NULL REFERENCES accounts (id),
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);

CREATE INDEX pets_account ON pets (account_id, id);
