/**
 * The roles a user holds in an account (docs/portal.md, "Team and roles"),
 * most powerful first: an owner does everything, members and invitations
 * included; a developer works with keys, webhooks, orders and the audit
 * trail; a viewer reads, and is never shown a secret.
 */
export const MEMBER_ROLES = ['owner', 'developer', 'viewer'] as const;

export type MemberRole = (typeof MEMBER_ROLES)[number];

const RANK: Readonly<Record<MemberRole, number>> = { owner: 3, developer: 2, viewer: 1 };

/** Whether `role` may do what needs at least `needed` (owner ⊇ developer ⊇ viewer). */
export function roleAllows(role: MemberRole, needed: MemberRole): boolean {
  return RANK[role] >= RANK[needed];
}

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);
}

/** The role as a person reads it ("Developer"). */
export function roleLabel(role: MemberRole): string {
  return `${role.charAt(0).toUpperCase()}${role.slice(1)}`;
}
