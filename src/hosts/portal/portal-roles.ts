import type { FastifyRequest } from 'fastify';
import type { AuditRecorder } from '../../audit/audit-service.js';
import { roleAllows, roleLabel, type MemberRole } from '../../users/team/member-roles.js';
import type { SignedIn } from '../../users/sessions-service.js';
import { PortalRefusal } from './portal-security.js';

/**
 * The role each signed-in route needs (docs/portal.md, "Team and roles";
 * OWASP ASVS 5.0 8.2.1, 8.3.1: authorization decided on the server, in one
 * place). By default a page (GET) is open to every member, viewers
 * included, and any other method needs a developer: a route that changes
 * something is refused to viewers unless it is listed here as what every
 * member does for themself. The confirmation pages of a developer's actions
 * need a developer too, so that a viewer is told at once. Keys are
 * `METHOD url` with Fastify's route pattern.
 */
const ROUTE_ROLES: Readonly<Record<string, MemberRole>> = {
  // The team: owners only (members, invitations, roles). Every member sees the Team page.
  'POST /team/invitations': 'owner',
  'POST /team/invitations/:invitationId/revoke': 'owner',
  'POST /team/members/:userId/role': 'owner',
  'GET /team/members/:userId/remove': 'owner',
  'POST /team/members/:userId/remove': 'owner',
  // Deleting the account: owners only, its page too.
  'GET /account/delete': 'owner',
  'POST /account/delete': 'owner',
  // The two-step actions' first steps.
  'GET /keys/:keyId/roll': 'developer',
  'GET /keys/:keyId/revoke': 'developer',
  'GET /orders/:orderId/cancel': 'developer',
  'GET /webhooks/:endpointId/delete': 'developer',
  'GET /webhooks/:endpointId/rotate': 'developer',
  // What every member does for themself: their own sign-in, address, sessions and passkeys, switching account, joining one.
  'POST /sign-out': 'viewer',
  'POST /settings/email': 'viewer',
  'POST /settings/password': 'viewer',
  'POST /settings/sign-out-everywhere': 'viewer',
  'POST /settings/sessions/end': 'viewer',
  'POST /settings/sessions/end-others': 'viewer',
  'POST /passkeys/register/options': 'viewer',
  'POST /passkeys/register': 'viewer',
  'POST /settings/passkeys/confirm': 'viewer',
  'POST /verify-email/resend': 'viewer',
  'POST /account/switch': 'viewer',
  'POST /invitations/accept': 'viewer',
};

/** The role a signed-in route needs (see ROUTE_ROLES). */
function requiredRole(method: string, url: string): MemberRole {
  return ROUTE_ROLES[`${method} ${url}`] ?? (method === 'GET' || method === 'HEAD' ? 'viewer' : 'developer');
}

/** What the signed-in member's role lets them do, as every page's template reads it (`it.can`). */
export interface PagePermissions {
  /** A developer or an owner: keys, webhooks and orders may be changed (their buttons are shown). */
  change: boolean;
  /** An owner: the team may be changed. */
  manage: boolean;
}

/**
 * The permissions a page shows buttons for (OWASP ASVS 5.0 8.2.1 is the
 * server's check above; this is only the display): a viewer is shown no
 * Roll, Revoke, Cancel, Delete or other action the server would refuse.
 * None when nobody is signed in.
 */
export function pagePermissions(role: MemberRole | undefined): PagePermissions {
  if (role === undefined) return { change: false, manage: false };
  return { change: roleAllows(role, 'developer'), manage: roleAllows(role, 'owner') };
}

/** What a refused member reads: their role, the role needed, and whom to ask. */
function refusal(signedIn: SignedIn, needed: MemberRole): string {
  const needs = needed === 'owner' ? 'an owner' : 'a developer or an owner';
  return `Your role in ${signedIn.accountName} is ${roleLabel(signedIn.role).toLowerCase()}: this needs ${needs}. Ask an owner of the account if you need it.`;
}

/**
 * The role guard, run by the session guard (portal-session.ts) on every
 * signed-in route: a member whose role is below the route's gets the 403
 * page in words, before the handler runs, and the refusal is recorded in
 * the account's audit trail (`authz_fail`, with the route and both roles;
 * ASVS 5.0 16.3.2). A path no route matches goes on to the 404 page.
 */
export async function checkRole(request: FastifyRequest, signedIn: SignedIn, audit: AuditRecorder): Promise<void> {
  const url = request.routeOptions.url;
  if (url === undefined) return;
  const needed = requiredRole(request.method, url);
  if (roleAllows(signedIn.role, needed)) return;
  await audit.recordAfterChange({
    actor: { kind: 'user', id: signedIn.user.id },
    address: request.ip,
    accountId: signedIn.user.accountId,
    action: 'authz_fail',
    details: { route: `${request.method} ${url}`, role: signedIn.role, needed },
  });
  throw new PortalRefusal(403, refusal(signedIn, needed));
}
