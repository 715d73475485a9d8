import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { redactApiKeys } from '../api-keys/api-key-format.js';
import { ValidationError } from '../errors/errors.js';
import { principalOf } from '../api/http/authentication.js';
import type { AuditEntry } from './audit-repository.js';
import { AUDIT_EVENTS_PARAMETERS, listAuditEventsSchema, type AuditEventRecord } from './audit-schemas.js';
import type { AuditService } from './audit-service.js';

/** `GET /audit-events` (beta). Expects to be registered under /v2, behind requireApiKey. */
export function registerAuditRoutes(scope: FastifyInstance, { auditService }: { auditService: Pick<AuditService, 'list'> }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/audit-events',
    {
      schema: listAuditEventsSchema,
      config: { scope: 'audit:read', inputs: { cursor: ['querystring', 'cursor'], limit: ['querystring', 'limit'] } },
      // Before validation: the validator silently drops unknown parameters.
      preValidation: async (request) => rejectUnknownParameters(request.query),
    },
    async (request) => {
      const { limit, cursor } = request.query;
      // The schema checked the shape; the service checks the range.
      const page = await auditService.list(principalOf(request).accountId, {
        ...(limit === undefined ? {} : { limit: Number(limit) }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return { data: page.entries.map(toAuditEventRecord), nextCursor: page.nextCursor };
    },
  );
}

/** The stored entry minus its account (the caller's own). */
export function toAuditEventRecord(entry: AuditEntry): AuditEventRecord {
  const record: AuditEventRecord = { id: entry.id, at: entry.at, action: entry.action, actor: { kind: entry.actor.kind }, details: { ...entry.details } };
  if (entry.actor.kind === 'user' || entry.actor.kind === 'key') record.actor.id = entry.actor.id;
  if (entry.address !== undefined) record.address = entry.address;
  if (entry.target !== undefined) record.target = { ...entry.target };
  return record;
}

function rejectUnknownParameters(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  const unknown = Object.keys(query).find((name) => !AUDIT_EVENTS_PARAMETERS.includes(name));
  if (unknown === undefined) return;
  // The name is the client's text: shown only when short and plain, and never a key.
  const shown = /^[A-Za-z0-9_.[\]-]{1,64}$/.test(unknown) ? redactApiKeys(unknown) : '(unprintable name)';
  throw new ValidationError(`Query parameter ${shown} is not supported. Supported: ${AUDIT_EVENTS_PARAMETERS.join(', ')}.`);
}
