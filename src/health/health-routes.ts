import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError, DatabaseUnavailableError } from '../errors/errors.js';
import { ErrorRecordSchema } from '../api/http/error-responses.js';
import type { OutageLog } from '../shared/outage-log.js';
import type { Storage } from '../storage/storage.js';

const StatusSchema = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Liveness and readiness probes: outside /v1 and open to callers without a key. */
export function registerHealthRoutes(
  app: FastifyInstance,
  { storage, outages }: { storage: Pick<Storage, 'ping'>; outages: Pick<OutageLog, 'databaseReachable'> },
): void {
  app.get(
    '/healthz',
    { config: { rateLimit: false, shed: false }, schema: { operationId: 'getHealth', tags: ['health'], summary: 'Process is up', response: { 200: StatusSchema } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      // Not rate limited; shed under load, so a balancer stops sending while the process is saturated.
      config: { rateLimit: false },
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'Database is reachable',
        response: { 200: StatusSchema, 503: ErrorRecordSchema },
      },
    },
    async (request) => {
      try {
        await storage.ping();
      } catch (error) {
        // A balancer asks every few seconds: the error handler hands an outage to the outage log, which writes one line for it.
        if (error instanceof DatabaseUnavailableError) throw new DatabaseUnavailableError('The database is not reachable.', { cause: error.cause });
        request.log.warn({ err: error }, 'readiness check failed');
        throw new AppError('service_unavailable', 'The database is not reachable.', { 'retry-after': '1' });
      }
      outages.databaseReachable();
      return { status: 'ready' };
    },
  );
}
