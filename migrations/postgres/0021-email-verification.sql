-- Mirrors migrations/sqlite/0021-email-verification.sql: users.email_verified_at
-- (users who exist now count as verified since they were created), and the
-- `verify-email` and `change-email` tokens with the address each is about.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at;

ALTER TABLE user_tokens ADD COLUMN email text CHECK (email IS NULL OR char_length(email) BETWEEN 3 AND 254);
ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_kind_check;
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_kind_check CHECK (kind IN ('invite', 'reset', 'verify-email', 'change-email'));
ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_check;
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_check CHECK ((kind = 'invite') = (account_id IS NOT NULL) AND (kind <> 'invite') = (user_id IS NOT NULL));
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_email_kind_check CHECK ((kind IN ('verify-email', 'change-email')) = (email IS NOT NULL));
