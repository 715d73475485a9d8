-- Mirrors migrations/sqlite/0018-reset-token-origin.sql: who made a
-- password-reset link, the operator (CLI) or the user ("Forgot password?").
ALTER TABLE user_tokens ADD COLUMN origin text NOT NULL DEFAULT 'operator' CHECK (origin IN ('operator', 'user'));
