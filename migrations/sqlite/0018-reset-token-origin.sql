-- Issue 27: who made a password-reset link. `operator` (the CLI's
-- `users reset-link`) or `user` (the portal's "Forgot password?"): a user who
-- has a passkey confirms a reset they asked for themselves with it, one an
-- operator made does not need it (docs/portal.md, "Recovery").
ALTER TABLE user_tokens ADD COLUMN origin TEXT NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'user'));
