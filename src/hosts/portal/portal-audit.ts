import type { FastifyRequest } from 'fastify';
import type { AuditAction, AuditContext, AuditDetails, AuditTarget } from '../../audit/audit-repository.js';
import type { AuditService } from '../../audit/audit-service.js';
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
 * Records a portal action of `user` (sign-in, sign-out, password, passkey)
 * in their account's trail. Never rejects (recordAfterChange reports its
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
