-- Mirrors migrations/postgres/0012-webhook-deliveries-per-endpoint.sql. The
-- delivery engine claims per endpoint (issue 26: a slow endpoint's backlog
-- must not slow the claim of any other): each endpoint with pending
-- deliveries is found by a loose index scan of webhook_deliveries_subject,
-- and its first due ones, in due order, through this index, so a claim
-- costs a few index reads per endpoint with work, however long any
-- endpoint's queue is.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
