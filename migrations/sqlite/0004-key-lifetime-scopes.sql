-- Key lifetime, scopes and last use (hardening).
-- expires_at: ISO 8601 UTC; NULL never expires. A rolled key's old secret
-- gets an expires_at at the end of its grace period.
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
-- Space-separated scope names. Keys issued before scopes existed could do
-- everything, so they keep every scope.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'orders:read orders:write pets:read messages:write';
-- Written in batches (never per request), so it can lag by the flush interval.
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
