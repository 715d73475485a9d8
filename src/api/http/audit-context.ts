import type { FastifyRequest } from 'fastify';
import type { AuditContext } from '../../audit/audit-repository.js';
import { principalOf } from './authentication.js';

/**
 * Who made an authenticated API request, for the audit trail: the key's id
 * (never its secret) and the client's address (X-Forwarded-For only from a
 * proxy in TRUST_PROXY, as Fastify's request.ip reads it).
 */
export function auditContextOf(request: FastifyRequest): AuditContext {
  return { actor: { kind: 'key', id: principalOf(request).keyId }, address: request.ip };
}
