import type { AuditContext } from '../../audit/audit-repository.js';
import type { AuditRecord, AuditService } from '../../audit/audit-service.js';
import { portalLink } from '../../mail/mail-links.js';
import type { MailService } from '../../mail/mail-service.js';
import { invitationMail } from '../../mail/mail-templates.js';
import type { Clock } from '../../shared/clock.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from '../secret-tokens.js';
import { emailProblem, normaliseEmail } from '../user-input.js';
import type { User } from '../users-repository.js';
import { roleAllows, roleLabel, type MemberRole } from './member-roles.js';
import type { Invitation, Member, TeamRepository } from './team-repository.js';

/** An invitation's link works this long. */
const INVITATION_VALID_MS = 7 * 24 * 3_600_000;

/** Who asks: a signed-in user, the account their session works in and their role there. */
export interface TeamActor {
  userId: number;
  accountId: number;
  role: MemberRole;
  /** Who and from where, for the audit trail. */
  audit: AuditContext;
}

export type TeamRefusalReason = 'forbidden' | 'not_found' | 'last_owner' | 'invalid' | 'already_member';

export interface TeamRefusal {
  ok: false;
  reason: TeamRefusalReason;
  /** One sentence for the person: what happened and what to do. */
  message: string;
}

const FORBIDDEN: TeamRefusal = { ok: false, reason: 'forbidden', message: 'Only an owner of this account can manage its team. Ask an owner.' };
const LAST_OWNER: TeamRefusal = { ok: false, reason: 'last_owner', message: 'An account always keeps at least one owner: make another member an owner first.' };
const NOT_MEMBER: TeamRefusal = { ok: false, reason: 'not_found', message: 'That person is not a member of this account any more.' };
const INVITATION_INVALID: TeamRefusal = { ok: false, reason: 'not_found', message: 'This invitation is not valid any more: it was used, revoked or has expired. Ask for a new one.' };

/**
 * The team of an account (docs/portal.md, "Team and roles"): its members
 * and their roles, invitations by mail, role changes and removals. Every
 * change is refused unless the actor is an owner of the account (the portal
 * checks the role before the route too: this is the rule itself), keeps one
 * owner at least (atomically, in storage), and is recorded in the account's
 * audit trail with who did it.
 */
export function createTeamService({
  teamRepository,
  mail,
  audit,
  clock,
}: {
  teamRepository: TeamRepository;
  mail: Pick<MailService, 'prepare'>;
  audit: Pick<AuditService, 'recordAfterChange' | 'recordInEachAfterChange'>;
  clock: Clock;
}) {
  const nowIso = () => clock.now().toISOString();

  return {
    /** The account's members and its pending invitations. */
    async list(accountId: number): Promise<{ members: Member[]; invitations: Invitation[] }> {
      const [members, invitations] = await Promise.all([teamRepository.listMembers(accountId), teamRepository.listInvitations(accountId, nowIso())]);
      return { members, invitations };
    },

    /** The accounts the user belongs to (the header's switcher). */
    memberships(userId: number) {
      return teamRepository.listMemberships(userId);
    },

    /**
     * Records an event of the user themself, outside any account's context
     * (a failed sign-in, a password reset, an address verified or changed),
     * in the audit trail of every account the user belongs to now (docs/audit.md,
     * "Which account"): each account's owners see what happened to a member
     * who can act in it, and an account the user has left sees nothing more
     * of them. Never rejects.
     */
    recordForUser(userId: number, input: Omit<AuditRecord, 'accountId'>): Promise<void> {
      return audit.recordInEachAfterChange(async () => (await teamRepository.listMemberships(userId)).map((membership) => membership.accountId), input);
    },

    /**
     * Invites `email` to the actor's account with `role`: a one-time link
     * (to `/sign-up?invite=` on `origin`, valid 7 days, only its hash kept)
     * mailed in the invitation's own transaction.
     */
    async invite(actor: TeamActor, input: { email: string; role: MemberRole; accountName: string; origin: string }): Promise<{ ok: true; invitation: Invitation } | TeamRefusal> {
      if (!roleAllows(actor.role, 'owner')) return FORBIDDEN;
      const email = normaliseEmail(input.email);
      const badEmail = emailProblem(email);
      if (badEmail !== undefined) return { ok: false, reason: 'invalid', message: badEmail };
      if ((await teamRepository.listMembers(actor.accountId)).some((member) => member.email === email)) {
        return { ok: false, reason: 'already_member', message: `${email} is already a member of this account.` };
      }
      const token = newSecretToken();
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + INVITATION_VALID_MS).toISOString();
      const message = invitationMail({ to: email, link: portalLink(input.origin, '/sign-up', { invite: token }), storeName: input.accountName, expiresAt, role: roleLabel(input.role) });
      const queued = await mail.prepare(message, { accountId: actor.accountId });
      const invitation = await teamRepository.createInvitation(
        { tokenHash: tokenHash(token), accountId: actor.accountId, email, role: input.role, invitedBy: actor.userId, createdAt: now.toISOString(), expiresAt },
        queued,
      );
      await record(actor, 'member_invited', { kind: 'invitation', id: String(invitation.id) }, { email, role: input.role });
      return { ok: true, invitation };
    },

    /**
     * The operator's invitation (`store-orders users invite`): a link for
     * whoever holds it, valid 7 days, joining `accountId` with `role`.
     */
    async inviteByOperator(accountId: number, role: MemberRole): Promise<{ token: string; invitation: Invitation }> {
      const token = newSecretToken();
      const now = clock.now();
      const invitation = await teamRepository.createInvitation({
        tokenHash: tokenHash(token),
        accountId,
        role,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + INVITATION_VALID_MS).toISOString(),
      });
      await audit.recordAfterChange({ actor: { kind: 'operator' }, accountId, action: 'member_invited', target: { kind: 'invitation', id: String(invitation.id) }, details: { role } });
      return { token, invitation };
    },

    /** The pending invitation a link carries, without using it. */
    async peek(token: string): Promise<Invitation | undefined> {
      return isSecretTokenShape(token) ? teamRepository.peekInvitation(tokenHash(token), nowIso()) : undefined;
    },

    /**
     * An existing, signed-in user accepts an invitation: they join its
     * account with its role, once. An invitation mailed to an address is
     * for that address only (the user's must be the same).
     */
    async accept(user: Pick<User, 'id' | 'email'>, token: string, context: AuditContext): Promise<{ ok: true; invitation: Invitation } | TeamRefusal> {
      const pending = await this.peek(token);
      if (pending === undefined) return INVITATION_INVALID;
      if (pending.email !== undefined && pending.email !== user.email) {
        return { ok: false, reason: 'forbidden', message: `This invitation was sent to ${pending.email}. Sign in with that address to accept it.` };
      }
      const accepted = await teamRepository.acceptInvitation(tokenHash(token), nowIso(), user.id);
      if (accepted === 'already_member') return { ok: false, reason: 'already_member', message: 'You are already a member of that account: switch to it from the header.' };
      if (accepted === undefined) return INVITATION_INVALID;
      await audit.recordAfterChange({
        ...context,
        accountId: accepted.accountId,
        action: 'member_joined',
        target: { kind: 'user', id: String(user.id) },
        details: { role: accepted.role, invitation: accepted.id },
      });
      return { ok: true, invitation: accepted };
    },

    /** Gives a member another role; the last owner keeps theirs. */
    async changeRole(actor: TeamActor, userId: number, role: MemberRole): Promise<{ ok: true; member: Member } | TeamRefusal> {
      if (!roleAllows(actor.role, 'owner')) return FORBIDDEN;
      const before = (await teamRepository.listMembers(actor.accountId)).find((member) => member.userId === userId);
      if (before === undefined) return NOT_MEMBER;
      const outcome = await teamRepository.setRole(actor.accountId, userId, role);
      if (outcome === 'last_owner') return LAST_OWNER;
      if (outcome === 'not_member') return NOT_MEMBER;
      await record(actor, 'privilege_permissions_changed', { kind: 'user', id: String(userId) }, { email: before.email, from: before.role, to: role });
      return { ok: true, member: { ...before, role } };
    },

    /** Removes a member: their sessions in this account end at once. The last owner stays. */
    async remove(actor: TeamActor, userId: number): Promise<{ ok: true; member: Member } | TeamRefusal> {
      if (!roleAllows(actor.role, 'owner')) return FORBIDDEN;
      const before = (await teamRepository.listMembers(actor.accountId)).find((member) => member.userId === userId);
      if (before === undefined) return NOT_MEMBER;
      const outcome = await teamRepository.removeMember(actor.accountId, userId);
      if (outcome === 'last_owner') return LAST_OWNER;
      if (outcome === 'not_member') return NOT_MEMBER;
      await record(actor, 'member_removed', { kind: 'user', id: String(userId) }, { email: before.email, role: before.role });
      return { ok: true, member: before };
    },

    /** Revokes a pending invitation of the actor's account: its link stops working. */
    async revoke(actor: TeamActor, invitationId: number): Promise<{ ok: true; invitation: Invitation } | TeamRefusal> {
      if (!roleAllows(actor.role, 'owner')) return FORBIDDEN;
      const revoked = await teamRepository.revokeInvitation(actor.accountId, invitationId, nowIso());
      if (revoked === undefined) return { ok: false, reason: 'not_found', message: 'That invitation is not pending any more: it was accepted, revoked or has expired.' };
      await record(actor, 'member_invitation_revoked', { kind: 'invitation', id: String(invitationId) }, { role: revoked.role, ...(revoked.email === undefined ? {} : { email: revoked.email }) });
      return { ok: true, invitation: revoked };
    },
  };

  function record(actor: TeamActor, action: 'member_invited' | 'privilege_permissions_changed' | 'member_removed' | 'member_invitation_revoked', target: { kind: 'user' | 'invitation'; id: string }, details: Record<string, string>) {
    return audit.recordAfterChange({ ...actor.audit, accountId: actor.accountId, action, target, details });
  }
}

export type TeamService = ReturnType<typeof createTeamService>;
