import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ValidationError } from '../../../errors/errors.js';
import { isMemberRole, MEMBER_ROLES, roleAllows, roleLabel, type MemberRole } from '../../../users/team/member-roles.js';
import type { TeamActor, TeamRefusal } from '../../../users/team/team-service.js';
import type { Invitation, Member } from '../../../users/team/team-repository.js';
import { portalAuditContext } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { PortalRefusal } from '../portal-security.js';
import { signedInUser } from '../portal-session.js';
import { confirmationFields, askedToConfirm } from '../portal-reauthentication.js';
import { verifyEmailFirst } from './email-verification-pages.js';

const MemberParams = Type.Object({ userId: Type.String({ pattern: '^[0-9]{1,15}$' }) });
const InvitationParams = Type.Object({ invitationId: Type.String({ pattern: '^[0-9]{1,15}$' }) });
const InviteForm = Type.Object({ _csrf: csrfField, email: formField(), role: formField(), ...confirmationFields });
const RoleForm = Type.Object({ _csrf: csrfField, role: formField(), ...confirmationFields });
const ConfirmedForm = Type.Object({ _csrf: csrfField, ...confirmationFields });
const SwitchForm = Type.Object({ _csrf: csrfField, accountId: Type.String({ pattern: '^[0-9]{1,15}$' }) });
const AcceptForm = Type.Object({ _csrf: csrfField, invite: formField() });
const TeamQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/** What /team says after a redirect (`?done=…`). */
const NOTICES: Readonly<Record<string, string>> = {
  invited: 'The invitation is on its way. Its link works once, for 7 days.',
  revoked: 'The invitation was revoked: its link no longer works.',
  role: 'The role was changed. It applies from the member\'s next click.',
  removed: 'The member was removed: their sessions in this account have ended.',
  joined: 'Welcome to the team.',
};

const ROLE_CHOICES = MEMBER_ROLES.map((role) => ({ value: role, label: roleLabel(role) }));

/** The role a form names, or a refusal the page shows. */
function formRole(value: string): MemberRole {
  if (!isMemberRole(value)) throw new ValidationError('Choose a role from the list: owner, developer or viewer.');
  return value;
}

/**
 * `/team` (signed in): the account's members (email, role, joined) and
 * pending invitations for every member; for owners, the forms that invite
 * by email with a role, change a member's role, remove a member and revoke
 * an invitation (their role is checked before the route, portal-roles.ts,
 * and again by the team service; each after a recent authentication,
 * portal-reauthentication.ts). `/account/switch` moves the session to
 * another account of the user's; `/invitations/accept` joins the account
 * of an invitation as the signed-in user.
 */
export function registerTeamPages(scope: FastifyInstance, context: PortalContext): void {
  const { render, services, origin } = context;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  function actorOf(request: FastifyRequest): TeamActor {
    const { user, role } = signedInUser(request);
    return { userId: user.id, accountId: user.accountId, role, audit: portalAuditContext(request) };
  }

  async function showTeam(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const signedIn = signedInUser(request);
    const { members, invitations } = await services.team.list(signedIn.user.accountId);
    const owners = members.filter((member) => member.role === 'owner' && member.disabledAt === undefined).length;
    return render(
      request,
      reply,
      'team',
      {
        title: 'Team',
        canManage: roleAllows(signedIn.role, 'owner'),
        members: members.map((member) => memberRow(member, signedIn.user.id, owners)),
        invitations: invitations.map(invitationRow),
        roles: ROLE_CHOICES,
        form: { email: '', role: 'developer' },
        ...extra,
      },
      status,
    );
  }

  /** A refusal of the team service as the page shows it: the 403 and 404 pages, or the Team page with the message. */
  async function refused(request: FastifyRequest, reply: FastifyReply, refusal: TeamRefusal, extra: Record<string, unknown> = {}) {
    if (refusal.reason === 'forbidden') throw new PortalRefusal(403, refusal.message);
    if (refusal.reason === 'not_found') return render(request, reply, 'error', { title: 'Not found', message: refusal.message, status: 404, requestId: request.id }, 404);
    return showTeam(request, reply, { error: refusal.message, ...extra }, refusal.reason === 'invalid' ? 400 : 409);
  }

  app.get('/team', { schema: { querystring: TeamQuery } }, async (request, reply) =>
    showTeam(request, reply, request.query.done === undefined ? {} : { notice: NOTICES[request.query.done] }),
  );

  app.post('/team/invitations', { schema: { body: InviteForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'invite a teammate')) return reply;
    const signedIn = signedInUser(request);
    if (!services.emailVerification.allows(signedIn.user)) throw verifyEmailFirst();
    const { email, role } = request.body;
    const invited = await services.team.invite(actorOf(request), { email, role: formRole(role), accountName: signedIn.accountName, origin: origin() });
    if (!invited.ok) return refused(request, reply, invited, { form: { email, role } });
    return reply.redirect('/team?done=invited', 303);
  });

  app.post('/team/invitations/:invitationId/revoke', { schema: { params: InvitationParams, body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'revoke an invitation')) return reply;
    const revoked = await services.team.revoke(actorOf(request), Number(request.params.invitationId));
    if (!revoked.ok) return refused(request, reply, revoked);
    return reply.redirect('/team?done=revoked', 303);
  });

  app.post('/team/members/:userId/role', { schema: { params: MemberParams, body: RoleForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'change a member’s role')) return reply;
    const changed = await services.team.changeRole(actorOf(request), Number(request.params.userId), formRole(request.body.role));
    if (!changed.ok) return refused(request, reply, changed);
    return reply.redirect('/team?done=role', 303);
  });

  app.get('/team/members/:userId/remove', { schema: { params: MemberParams } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const member = (await services.team.list(signedIn.user.accountId)).members.find((candidate) => candidate.userId === Number(request.params.userId));
    if (member === undefined) return refused(request, reply, { ok: false, reason: 'not_found', message: 'That person is not a member of this account any more.' });
    return render(request, reply, 'team-remove', { title: 'Remove a member', member: { id: member.userId, email: member.email, role: roleLabel(member.role), self: member.userId === signedIn.user.id } });
  });

  app.post('/team/members/:userId/remove', { schema: { params: MemberParams, body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'remove a member')) return reply;
    const removed = await services.team.remove(actorOf(request), Number(request.params.userId));
    if (!removed.ok) return refused(request, reply, removed);
    return reply.redirect('/team?done=removed', 303);
  });

  app.post('/account/switch', { schema: { body: SwitchForm } }, async (request, reply) => {
    const switched = await services.sessions.switchAccount(signedInUser(request), Number(request.body.accountId));
    if (!switched) throw new PortalRefusal(403, 'You are not a member of that account. Ask one of its owners to invite you.');
    return reply.redirect('/', 303);
  });

  app.post('/invitations/accept', { schema: { body: AcceptForm } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const accepted = await services.team.accept(signedIn.user, request.body.invite, portalAuditContext(request));
    if (!accepted.ok) {
      if (accepted.reason === 'forbidden') throw new PortalRefusal(403, accepted.message);
      const status = accepted.reason === 'not_found' ? 404 : 409;
      return render(request, reply, 'error', { title: 'Invitation not accepted', message: accepted.message, status, requestId: request.id }, status);
    }
    await services.sessions.switchAccount(signedIn, accepted.invitation.accountId);
    return reply.redirect('/team?done=joined', 303);
  });
}

/** A member as the table shows it; `lastOwner`: the one owner who may sign in, whose role and membership stay. */
function memberRow(member: Member, selfId: number, owners: number) {
  return {
    id: member.userId,
    email: member.email,
    role: member.role,
    roleLabel: roleLabel(member.role),
    joined: formatInstant(member.joinedAt),
    self: member.userId === selfId,
    disabled: member.disabledAt !== undefined,
    lastOwner: member.role === 'owner' && member.disabledAt === undefined && owners === 1,
  };
}

function invitationRow(invitation: Invitation) {
  return {
    id: invitation.id,
    email: invitation.email ?? 'Anyone with the link',
    roleLabel: roleLabel(invitation.role),
    sent: formatInstant(invitation.createdAt),
    expires: formatInstant(invitation.expiresAt),
  };
}
