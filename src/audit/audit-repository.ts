/**
 * The closed list of audited actions. Names follow the OWASP Logging
 * Vocabulary (cheatsheetseries.owasp.org, Logging Vocabulary Cheat Sheet)
 * where it has one; the others are our own, in the same `area_event` shape.
 * New actions are appended: the database stores the name as text, so adding
 * one needs no migration (docs/audit.md has the mapping).
 */
export const AUDIT_ACTIONS = [
  // OWASP authn_login_success / authn_login_fail.
  'authn_login_success',
  'authn_login_fail',
  // OWASP session_expired:[userid,reason]: the vocabulary has no logout event; sign-out is
  // a session ending with details.reason "logout" (or "revoked" for sign-out everywhere and for
  // ending one session from the Sessions list, "revoked_others" for sign-out everywhere else).
  'session_expired',
  // OWASP authn_password_change.
  'authn_password_change',
  // Ours: the vocabulary has no passkey (or MFA factor) event.
  'authn_passkey_added',
  // Ours: two-step sign-in (an authenticator app) turned on, its recovery codes replaced, turned off.
  'authn_two_step_enabled',
  'authn_recovery_codes_replaced',
  'authn_two_step_disabled',
  // OWASP authn_token_created / authn_token_revoked (API keys are the tokens).
  'authn_token_created',
  // Ours: a roll issues a replacement and shortens the old key's life; the vocabulary has no such event.
  'authn_token_rolled',
  'authn_token_revoked',
  // OWASP user_created; user_disabled is ours (the vocabulary's user_archived means something stronger).
  'user_created',
  'user_disabled',
  // Ours (the vocabulary's user_updated is broader): a user followed the link to their address; asked
  // to change it (details.to: the new address, which changes only when its link is followed); it changed.
  'user_email_verified',
  'user_email_change_requested',
  'user_email_changed',
  // Ours: business events.
  'order_cancelled',
  'order_shipped',
  'webhook_endpoint_disabled',
  // Ours: an endpoint is a channel data leaves by, so every change to one is recorded.
  'webhook_endpoint_created',
  'webhook_endpoint_updated',
  'webhook_endpoint_enabled',
  'webhook_endpoint_deleted',
  'webhook_secret_rotated',
  'webhook_event_redelivered',
  'webhook_deliveries_recovered',
  // Ours: a user saw the notice of an endpoint the service disabled (410, failing for 5 days) and dismissed it.
  'webhook_endpoint_notice_acknowledged',
  // Ours: the team of an account (issue 27). An invitation was sent or made (details.role, details.email
  // when mailed), revoked, or accepted (member_joined: the user who joined is the actor and the target);
  // a member was removed.
  'member_invited',
  'member_invitation_revoked',
  'member_joined',
  'member_removed',
  // OWASP privilege_permissions_changed:[userid,object,fromlevel,tolevel]: a member's role changed (details.from, details.to).
  'privilege_permissions_changed',
  // OWASP authz_fail:[userid,resource]: the portal refused a member a route their role does not allow
  // (details.route, details.role, details.needed).
  'authz_fail',
  // Ours: an order placed by someone the trail names (the API's placeOrder, the portal's "Place a test order", `orders create`; target: the order).
  'order_created',
  // Ours: an owner (or the operator) deleted the account (details.name; what it ended: keys, members, endpoints).
  // Written in the deletion's own transaction, the last entry of the account's trail.
  'account_deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: a portal user, an API key (its id, never its secret), the operator's CLI, or the service itself. */
export type AuditActor = { kind: 'user'; id: number } | { kind: 'key'; id: number } | { kind: 'operator' } | { kind: 'system' };

export const AUDIT_ACTOR_KINDS = ['user', 'key', 'operator', 'system'] as const;

export const AUDIT_TARGET_KINDS = ['api_key', 'order', 'user', 'passkey', 'session', 'webhook_endpoint', 'invitation'] as const;

/** What was acted on, e.g. { kind: 'order', id: '1001' }; ids as decimal text (order ids are int64). */
export interface AuditTarget {
  kind: (typeof AUDIT_TARGET_KINDS)[number];
  id: string;
}

/** Small facts about the action (never a secret): at most 8 keys, string values up to 200 characters. */
export type AuditDetails = Readonly<Record<string, string | number | boolean>>;

/**
 * Who did it and from where, as a caller hands it to a service: the HTTP
 * edge builds it from the request (key id, client address), the CLI says
 * `operator`, the portal says the user. A plain object: services stay free of HTTP.
 */
export interface AuditContext {
  actor: AuditActor;
  /** The client's address (after TRUST_PROXY), when there is a client. */
  address?: string;
}

export interface NewAuditEntry {
  accountId: number;
  /** ISO 8601 UTC with milliseconds. */
  at: string;
  actor: AuditActor;
  address?: string;
  action: AuditAction;
  target?: AuditTarget;
  details: AuditDetails;
}

export interface AuditEntry extends NewAuditEntry {
  /** Increases with every entry written: newest first is by id, descending. */
  id: bigint;
}

/** Storage of the audit trail: append-only, read newest first per account, pruned by age. */
export interface AuditRepository {
  /** Writes the entries in one transaction; an unknown account rejects the whole call (account_not_found). */
  append(entries: readonly NewAuditEntry[]): Promise<void>;
  /** The account's entries with an id below `beforeId` (all when absent), newest first, at most `limit`. */
  listPage(query: { accountId: number; beforeId?: bigint; limit: number }): Promise<AuditEntry[]>;
  /** Deletes at most `limit` entries older than `before` (any account); answers how many it deleted. */
  deleteOlderThan(before: string, limit: number): Promise<number>;
}
