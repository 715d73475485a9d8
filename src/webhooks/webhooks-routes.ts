import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../errors/errors.js';
import { principalOf } from '../api/http/authentication.js';
import { auditContextOf } from '../api/http/audit-context.js';
import type { FastifyRequest } from 'fastify';
import { parseJsonObject, requireJsonContentType } from '../http/json-body.js';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryDetail, WebhookEndpoint } from './webhooks-repository.js';
import {
  createEndpointSchema,
  deleteEndpointSchema,
  getEndpointSchema,
  listEndpointsSchema,
  PAGE_LIMIT_DEFAULT,
  rotateSecretSchema,
  updateEndpointSchema,
  WEBHOOKS_BODY_LIMIT_BYTES,
  WEBHOOKS_LIMIT_MAX,
  type PageQuery,
} from './webhooks-schemas.js';
import { getDeliverySchema, listDeliveriesSchema, recoverSchema, redeliverSchema, sendTestEventSchema } from './webhook-delivery-schemas.js';
import type { WebhookDeliveryDetailRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from './webhook-record-schemas.js';
import type { WebhooksService } from './webhooks-service.js';
import type { WebhooksCaller } from './webhook-scopes.js';

/** The key that asks: who, for the audit trail, and what it may read. */
function callerOf(request: FastifyRequest): WebhooksCaller {
  return { context: auditContextOf(request), scopes: principalOf(request).scopes };
}

const SCOPE = 'webhooks:manage';
const BODY_EXAMPLE = '{"url": "https://hooks.example.com/store-orders"}';

function toEndpointRecord(endpoint: WebhookEndpoint): WebhookEndpointRecord {
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    description: endpoint.description,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    rateLimit: endpoint.rateLimit,
    pausedUntil: endpoint.pausedUntil,
    createdAt: endpoint.createdAt,
  };
}

function toDeliveryRecord(delivery: WebhookDelivery): WebhookDeliveryRecord {
  return { ...delivery };
}

/** An attempt as the API shows it: the request's headers under `request`. */
function toAttemptRecord({ requestHeaders, ...attempt }: WebhookDeliveryAttempt) {
  return { ...attempt, request: { headers: requestHeaders } };
}

/** The delivery with its attempts, without its payload (the event, which GET /v2/events/{id} serves to keys that may read it). */
function toDeliveryDetailRecord(detail: WebhookDeliveryDetail): WebhookDeliveryDetailRecord {
  const { attemptLog } = detail;
  return {
    id: detail.id,
    eventId: detail.eventId,
    status: detail.status,
    createdAt: detail.createdAt,
    attempts: detail.attempts,
    lastAttemptAt: detail.lastAttemptAt,
    statusCode: detail.statusCode,
    error: detail.error,
    durationMs: detail.durationMs,
    nextAttemptAt: detail.nextAttemptAt,
    attemptLog: attemptLog.map(toAttemptRecord),
  };
}

function pageLimit(query: PageQuery): number {
  const limit = query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
  if (limit > WEBHOOKS_LIMIT_MAX) throw new ValidationError(`Query parameter limit is not valid. Expected: 1 to ${WEBHOOKS_LIMIT_MAX}.`);
  return limit;
}

/**
 * The v2 (beta) webhook operations. Expects to be registered under /v2,
 * behind requireApiKey, in its own scope. The operations that take a JSON
 * body sit in a child scope with the one strict JSON parser; the others keep
 * the host's body rule (a body sent to them is refused as on every route).
 */
export async function registerWebhooksRoutes(scope: FastifyInstance, { webhooksService }: { webhooksService: WebhooksService }): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/webhook-endpoints', { schema: listEndpointsSchema, config: { scope: SCOPE } }, async (request) => {
    const page = await webhooksService.listEndpointsByCursor(principalOf(request).accountId, request.query.cursor, pageLimit(request.query));
    return { data: page.items.map(toEndpointRecord), nextCursor: page.nextCursor };
  });

  app.get('/webhook-endpoints/:endpointId', { schema: getEndpointSchema, config: { scope: SCOPE } }, async (request) => {
    return toEndpointRecord(await webhooksService.getEndpoint(principalOf(request).accountId, request.params.endpointId));
  });

  app.delete('/webhook-endpoints/:endpointId', { schema: deleteEndpointSchema, config: { scope: SCOPE } }, async (request, reply) => {
    await webhooksService.deleteEndpoint(principalOf(request).accountId, request.params.endpointId, callerOf(request));
    return reply.code(204).send(null);
  });

  app.post('/webhook-endpoints/:endpointId/rotate-secret', { schema: rotateSecretSchema, config: { scope: SCOPE } }, async (request) => {
    const { endpoint, secret } = await webhooksService.rotateSecret(principalOf(request).accountId, request.params.endpointId, callerOf(request));
    return { ...toEndpointRecord(endpoint), secret };
  });

  app.get('/webhook-endpoints/:endpointId/deliveries', { schema: listDeliveriesSchema, config: { scope: SCOPE } }, async (request) => {
    const page = await webhooksService.listDeliveriesByCursor(principalOf(request).accountId, request.params.endpointId, request.query.cursor, pageLimit(request.query));
    return { data: page.items.map(toDeliveryRecord), nextCursor: page.nextCursor };
  });

  app.post('/webhook-endpoints/:endpointId/test', { schema: sendTestEventSchema, config: { scope: SCOPE } }, async (request) => {
    const { eventId, delivered, attempt } = await webhooksService.sendTestEvent(principalOf(request).accountId, request.params.endpointId);
    return { eventId, delivered, attempt: toAttemptRecord(attempt) };
  });

  app.get('/webhook-endpoints/:endpointId/deliveries/:deliveryId', { schema: getDeliverySchema, config: { scope: SCOPE } }, async (request) => {
    const { endpointId, deliveryId } = request.params;
    return toDeliveryDetailRecord(await webhooksService.getDelivery(principalOf(request).accountId, endpointId, deliveryId));
  });

  await app.register(async (bodiedScope) => {
    const app = bodiedScope.withTypeProvider<TypeBoxTypeProvider>();
    // Only our strict JSON parser: every other media type is refused before its body is read.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOKS_BODY_LIMIT_BYTES }, (_request, body, done) => {
      try {
        done(null, parseJsonObject(body as Buffer, BODY_EXAMPLE));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    const withBody = {
      bodyLimit: WEBHOOKS_BODY_LIMIT_BYTES,
      preParsing: async (request: Parameters<typeof requireJsonContentType>[0]) => {
        requireJsonContentType(request);
      },
    };

    app.post('/webhook-endpoints', { schema: createEndpointSchema, config: { scope: SCOPE }, ...withBody }, async (request, reply) => {
      const { endpoint, secret } = await webhooksService.createEndpoint(principalOf(request).accountId, request.body, callerOf(request));
      return reply.code(201).send({ ...toEndpointRecord(endpoint), secret });
    });

    app.patch('/webhook-endpoints/:endpointId', { schema: updateEndpointSchema, config: { scope: SCOPE }, ...withBody }, async (request) => {
      const { status, ...fields } = request.body;
      const endpoint = await webhooksService.updateEndpoint(principalOf(request).accountId, request.params.endpointId, {
        ...fields,
        ...(status === undefined ? {} : { status: status === 'enabled' ? 'enabled' : 'disabled' }),
      }, callerOf(request));
      return toEndpointRecord(endpoint);
    });

    app.post('/webhook-endpoints/:endpointId/recover', { schema: recoverSchema, config: { scope: SCOPE }, ...withBody }, async (request, reply) => {
      const since = new Date(request.body.since);
      if (Number.isNaN(since.getTime())) throw new ValidationError('since is not valid. Expected: an ISO 8601 date-time, e.g. 2026-11-24T00:00:00Z.');
      const queued = await webhooksService.recover(principalOf(request).accountId, request.params.endpointId, since.toISOString(), callerOf(request));
      return reply.code(202).send({ queued });
    });

    app.post(
      '/events/:eventId/redeliver',
      {
        schema: redeliverSchema,
        config: { scope: SCOPE },
        bodyLimit: WEBHOOKS_BODY_LIMIT_BYTES,
        // The body is optional here: without one, the event goes to every subscribed endpoint.
        preParsing: async (request) => {
          if (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0') requireJsonContentType(request);
          else if (request.headers['transfer-encoding'] !== undefined) requireJsonContentType(request);
        },
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const queued = await webhooksService.redeliver(principalOf(request).accountId, request.params.eventId, request.body.endpointId, callerOf(request));
        return reply.code(202).send({ queued });
      },
    );
  });
}
