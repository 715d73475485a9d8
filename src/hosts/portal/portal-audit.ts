import type { FastifyRequest } from 'fastify';
import type { AuditAction, AuditContext, AuditDetails, AuditTarget } from '../../audit/audit-repository.js';
import type { AuditService } from '../../audit/audit-service.js';
import type { TeamService } from '../../users/team/team-service.js';
import type { User } from '../../users/users-repository.js';
import { signedInUser } from './portal-session.js';

/**
 * Who made a portal request, for the audit trail: the signed-in user (never
 * a key: the portal takes none) and the client's address, as Fastify's
 * request.ip reads it (X-Forwarded-For only from a proxy in TRUST_PROXY).
 */
export function portalAuditContext(request: FastifyRequest, user: Pick<User, 'id'> = signedInUser(request).user): AuditContext & { actor: { kind: 'user'; id: number } } {
  return { actor: { kind: 'user', id: user.id }, address: request.ip };
}

/**
 * Records a portal action of `user` in one account's trail: `user.accountId`,
 * the account the session works in (a sign-in, a sign-out, a session
 * ended, a confirmation, a change to the account). An event of the user
 * themself is recordUserEvent's. Never rejects (recordAfterChange reports its
 * failures to the server's log), so a failed audit write cannot undo a
 * sign-in that has happened.
 */
export function recordPortalAction(
  audit: Pick<AuditService, 'recordAfterChange'>,
  request: FastifyRequest,
  user: Pick<User, 'id' | 'accountId'>,
  action: AuditAction,
  { details, target }: { details?: AuditDetails; target?: AuditTarget } = {},
): Promise<void> {
  return audit.recordAfterChange({
    ...portalAuditContext(request, user),
    accountId: user.accountId,
    action,
    ...(details === undefined ? {} : { details }),
    ...(target === undefined ? {} : { target }),
  });
}

/**
 * Records an event of `user` themself (their password, passkeys or address;
 * a failed sign-in naming them) in the trail of every account they belong
 * to now, whether or not a session is in context (team-service.ts
 * recordForUser; docs/audit.md, "Which account"). Never rejects.
 */
export function recordUserEvent(
  team: Pick<TeamService, 'recordForUser'>,
  request: FastifyRequest,
  user: Pick<User, 'id'>,
  action: AuditAction,
  { details, target }: { details?: AuditDetails; target?: AuditTarget } = {},
): Promise<void> {
  return team.recordForUser(user.id, {
    ...portalAuditContext(request, user),
    action,
    ...(details === undefined ? {} : { details }),
    ...(target === undefined ? {} : { target }),
  });
}
