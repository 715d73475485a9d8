-- Mirrors migrations/sqlite/0013-webhook-delivery-attempts.sql: every attempt
-- of a webhook delivery (issue 26), for GET
-- /v2/webhook-endpoints/{id}/deliveries/{deliveryId} and the portal's
-- delivery page: what was sent (the headers, the signature among them; never
-- a secret) and what came back (status, headers, the first 4 KB of the body),
-- or why nothing did. Written in the transaction that settles the attempt;
-- gone with its delivery (which goes with its event, at the events' retention).
CREATE TABLE webhook_delivery_attempts (
  delivery_seq      bigint      NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
  attempt           integer     NOT NULL,
  at                timestamptz NOT NULL,
  duration_ms       integer,
  status_code       integer,
  error             text,
  -- JSON objects of header names to values.
  request_headers   text        NOT NULL,
  response_headers  text,
  response_body     text,
  PRIMARY KEY (delivery_seq, attempt)
);
