-- Issue 27: an owner deletes their account (docs/portal.md, "Deleting an
-- account"). The account is kept, marked deleted, with its orders, events
-- and audit trail (every other table refers to it, and its trail records
-- the deletion); what could act in it is ended in the deletion's own
-- transaction: keys revoked, memberships and sessions deleted, invitations
-- revoked, webhook endpoints disabled. NULL: not deleted.
ALTER TABLE accounts ADD COLUMN deleted_at TEXT;
