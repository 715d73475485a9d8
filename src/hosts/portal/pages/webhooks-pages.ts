import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { ValidationError } from '../../../errors/errors.js';
import { EVENT_TYPES } from '../../../events/event-types.js';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../../webhooks/webhooks-repository.js';
import { portalAuditContext } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';

/** Endpoints and deliveries per portal page. */
const ENDPOINTS_PAGE_SIZE = 50;
const DELIVERIES_PAGE_SIZE = 25;
/** As the API's schemas bound them (webhook-record-schemas.ts). */
const URL_MAX_LENGTH = 2048;
const DESCRIPTION_MAX_LENGTH = 500;

const ENDPOINT_ID = '^we_[0-9a-f]{32}$';
/** An endpoint's pages and forms (`/webhooks/<id>/…`). */
export const EndpointParams = Type.Object({ endpointId: Type.String({ pattern: ENDPOINT_ID }) });
const ListQuery = Type.Object({
  after: Type.Optional(Type.String({ pattern: ENDPOINT_ID })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
});
const DeliveriesQuery = Type.Object({
  before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,18}$' })),
  redelivered: Type.Optional(Type.String({ pattern: '^evt_[0-9a-f]{32}$' })),
  recovered: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
});
/** How far back "Recover failed deliveries" reaches. */
const RECOVER_SPANS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
const RecoverForm = Type.Object({ _csrf: csrfField, since: Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('week')]) });
const CreateForm = Type.Object({
  _csrf: csrfField,
  url: formField(),
  eventType: Type.Optional(Type.Union([formField(), Type.Array(formField(), { maxItems: 20 })])),
  description: Type.Optional(formField()),
  rateLimit: Type.Optional(formField()),
});
const RateLimitForm = Type.Object({ _csrf: csrfField, rateLimit: formField() });
const DeliveryParams = Type.Object({ endpointId: Type.String({ pattern: ENDPOINT_ID }), deliveryId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) });
const RedeliverForm = Type.Object({ _csrf: csrfField, eventId: Type.String({ pattern: '^evt_[0-9a-f]{32}$' }) });
const EmptyForm = Type.Object({ _csrf: csrfField });
type CreateForm = Static<typeof CreateForm>;

/** What the list page says after a change it was redirected from. */
const NOTICES: Readonly<Record<string, string>> = {
  disabled: 'The endpoint was disabled. Its deliveries wait until it is enabled again.',
  enabled: 'The endpoint was enabled. Waiting deliveries go out now.',
  deleted: 'The endpoint and its deliveries were deleted.',
};

function endpointRow(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes === null ? 'all event types' : endpoint.eventTypes.join(', '),
    description: endpoint.description ?? '',
    status: endpoint.status,
    disabledReason: endpoint.disabledReason ?? '',
    enabled: endpoint.status === 'enabled',
    rateLimit: endpoint.rateLimit === null ? '' : String(endpoint.rateLimit),
    pausedUntil: endpoint.pausedUntil === null ? '' : formatInstant(endpoint.pausedUntil),
    created: formatInstant(endpoint.createdAt),
  };
}

/** A rate limit field: empty for none, else a whole number (the service checks its range). */
function rateLimitOf(field: string | undefined): number | null {
  const text = (field ?? '').trim();
  if (text === '') return null;
  if (!/^[0-9]{1,6}$/.test(text)) throw new ValidationError('Rate limit must be a whole number of deliveries a second, or empty for none.');
  return Number(text);
}

function deliveryRow(delivery: WebhookDelivery) {
  const outcome = [delivery.statusCode === null ? '' : `HTTP ${delivery.statusCode}`, delivery.error ?? ''].filter((part) => part !== '').join(': ');
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    time: formatInstant(delivery.lastAttemptAt ?? delivery.createdAt),
    status: delivery.status,
    attempts: delivery.attempts,
    outcome: outcome === '' ? (delivery.attempts === 0 ? 'not sent yet' : '—') : outcome,
    duration: delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`,
    nextRetry: formatInstant(delivery.nextAttemptAt ?? undefined),
  };
}

/** An attempt as the delivery page shows it: headers one per line, the outcome in words. */
function attemptRow(attempt: WebhookDeliveryAttempt) {
  const lines = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n');
  const outcome = attempt.error ?? (attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`);
  return {
    attempt: attempt.attempt,
    time: formatInstant(attempt.at),
    duration: attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`,
    outcome,
    requestHeaders: lines(attempt.requestHeaders),
    response: attempt.response === null ? null : { headers: lines(attempt.response.headers), body: attempt.response.body },
  };
}

/** The checked event types: null when all are (the endpoint then also receives types added later). */
function chosenTypes(field: string | string[] | undefined): string[] | null {
  const names = field === undefined ? [] : Array.isArray(field) ? field : [field];
  if (names.some((name) => !(EVENT_TYPES as readonly string[]).includes(name))) throw new ValidationError('Choose event types from the list.');
  const types = EVENT_TYPES.filter((type) => names.includes(type));
  if (types.length === 0) throw new ValidationError('Choose at least one event type.');
  return types.length === EVENT_TYPES.length ? null : types;
}

function checkedForm({ url, eventType, description, rateLimit }: CreateForm) {
  const trimmed = url.trim();
  if (trimmed === '') throw new ValidationError('Endpoint URL is required.');
  if (trimmed.length > URL_MAX_LENGTH) throw new ValidationError(`Endpoint URL must be at most ${URL_MAX_LENGTH} characters.`);
  const note = (description ?? '').trim();
  if (note.length > DESCRIPTION_MAX_LENGTH) throw new ValidationError(`Description must be at most ${DESCRIPTION_MAX_LENGTH} characters.`);
  return { url: trimmed, eventTypes: chosenTypes(eventType), description: note === '' ? null : note, rateLimit: rateLimitOf(rateLimit) };
}

/**
 * `/webhooks` (signed in): the account's webhook endpoints through the
 * webhooks service, the form that creates one, enabling and disabling, the
 * two-step delete and secret rotation, and each endpoint's deliveries with
 * a redeliver button. A signing secret is shown once, in the answer to the
 * POST that made it (never in a URL or a redirect; the session guard makes
 * every answer `no-store`). A URL the SSRF rules refuse is a form error.
 */
export function registerWebhooksPages(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks } = services;
  const accountOf = (request: FastifyRequest) => signedInUser(request).user.accountId;

  async function showEndpoints(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200, after?: string) {
    const page = await webhooks.listEndpoints(accountOf(request), after, ENDPOINTS_PAGE_SIZE);
    return render(
      request,
      reply,
      'webhooks',
      {
        title: 'Webhooks',
        endpoints: page.items.map(endpointRow),
        next: page.next === undefined ? undefined : `/webhooks?after=${page.next}`,
        paged: after !== undefined,
        eventTypes: EVENT_TYPES,
        form: { url: '', eventTypes: EVENT_TYPES, description: '', rateLimit: '' },
        ...extra,
      },
      status,
    );
  }

  app.get('/webhooks', { schema: { querystring: ListQuery } }, async (request, reply) => {
    const notice = request.query.done === undefined ? undefined : NOTICES[request.query.done];
    return showEndpoints(request, reply, notice === undefined ? {} : { notice }, 200, request.query.after);
  });

  app.post('/webhooks', { schema: { body: CreateForm } }, async (request, reply) => {
    try {
      const { endpoint, secret } = await webhooks.createEndpoint(accountOf(request), checkedForm(request.body), { context: portalAuditContext(request) });
      return await showEndpoints(request, reply, { newSecret: { secret, url: endpoint.url, heading: 'Endpoint created' } }, 201);
    } catch (error) {
      // A refused URL (the SSRF rules) or a bad field: the service's reason, on the form.
      if (!(error instanceof ValidationError)) throw error;
      const { url, eventType, description, rateLimit } = request.body;
      const names = eventType === undefined ? [] : Array.isArray(eventType) ? eventType : [eventType];
      return showEndpoints(request, reply, { error: error.message, form: { url, eventTypes: names, description: description ?? '', rateLimit: rateLimit ?? '' } }, 400);
    }
  });

  /** An endpoint's page: its facts and a page of its deliveries, newest first (before `before`), with what `extra` adds. */
  async function showDeliveries(request: FastifyRequest, reply: FastifyReply, endpointId: string, before: string | undefined, extra: Record<string, unknown> = {}, status = 200) {
    const accountId = accountOf(request);
    const endpoint = await webhooks.getEndpoint(accountId, endpointId);
    const page = await webhooks.listDeliveries(accountId, endpoint.id, before, DELIVERIES_PAGE_SIZE);
    return render(request, reply, 'webhook-deliveries', {
      title: 'Webhook deliveries',
      endpoint: endpointRow(endpoint),
      deliveries: page.items.map(deliveryRow),
      next: page.next === undefined ? undefined : `/webhooks/${endpoint.id}?before=${page.next}`,
      paged: before !== undefined,
      ...extra,
    }, status);
  }

  app.get('/webhooks/:endpointId', { schema: { params: EndpointParams, querystring: DeliveriesQuery } }, async (request, reply) => {
    const { before, redelivered, recovered } = request.query;
    const notice =
      redelivered !== undefined
        ? `Event ${redelivered} was queued for delivery again.`
        : recovered !== undefined
          ? `${recovered} failed deliver${recovered === '1' ? 'y was' : 'ies were'} queued again.`
          : undefined;
    return showDeliveries(request, reply, request.params.endpointId, before, notice === undefined ? {} : { notice });
  });

  app.post('/webhooks/:endpointId/recover', { schema: { params: EndpointParams, body: RecoverForm } }, async (request, reply) => {
    const { endpointId } = request.params;
    const since = new Date(Date.now() - RECOVER_SPANS[request.body.since]).toISOString();
    const queued = await webhooks.recover(accountOf(request), endpointId, since, { context: portalAuditContext(request) });
    return reply.redirect(`/webhooks/${endpointId}?recovered=${queued}`, 303);
  });

  app.get('/webhooks/:endpointId/deliveries/:deliveryId', { schema: { params: DeliveryParams } }, async (request, reply) => {
    const accountId = accountOf(request);
    const endpoint = await webhooks.getEndpoint(accountId, request.params.endpointId);
    const delivery = await webhooks.getDelivery(accountId, endpoint.id, request.params.deliveryId);
    return render(request, reply, 'webhook-delivery', {
      title: 'Webhook delivery',
      endpoint: endpointRow(endpoint),
      delivery: { ...deliveryRow(delivery), created: formatInstant(delivery.createdAt) },
      attempts: delivery.attemptLog.map(attemptRow),
      payload: delivery.payload,
    });
  });

  app.post('/webhooks/:endpointId/test', { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
    const result = await webhooks.sendTestEvent(accountOf(request), request.params.endpointId);
    const attempt = attemptRow(result.attempt);
    return showDeliveries(request, reply, request.params.endpointId, undefined, {
      testResult: { eventId: result.eventId, delivered: result.delivered, outcome: attempt.outcome, duration: attempt.duration },
    });
  });

  app.post('/webhooks/:endpointId/rate-limit', { schema: { params: EndpointParams, body: RateLimitForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    try {
      const rateLimit = rateLimitOf(request.body.rateLimit);
      await webhooks.updateEndpoint(user.accountId, request.params.endpointId, { rateLimit }, { context: portalAuditContext(request, user) });
      const notice = rateLimit === null ? 'The rate limit was removed.' : `At most ${rateLimit} deliveries a second now go to this endpoint.`;
      return await showDeliveries(request, reply, request.params.endpointId, undefined, { notice });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return showDeliveries(request, reply, request.params.endpointId, undefined, { error: error.message }, 400);
    }
  });

  for (const status of ['disabled', 'enabled'] as const) {
    const action = status === 'disabled' ? 'disable' : 'enable';
    app.post(`/webhooks/:endpointId/${action}`, { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
      const { user } = signedInUser(request);
      await webhooks.updateEndpoint(user.accountId, request.params.endpointId, { status }, { context: portalAuditContext(request, user) });
      return reply.redirect(`/webhooks?done=${status}`, 303);
    });
  }

  app.get('/webhooks/:endpointId/delete', { schema: { params: EndpointParams } }, async (request, reply) => {
    const endpoint = endpointRow(await webhooks.getEndpoint(accountOf(request), request.params.endpointId));
    return render(request, reply, 'webhook-delete', { title: 'Delete a webhook endpoint', endpoint });
  });

  app.post('/webhooks/:endpointId/delete', { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
    await webhooks.deleteEndpoint(accountOf(request), request.params.endpointId, { context: portalAuditContext(request) });
    return reply.redirect('/webhooks?done=deleted', 303);
  });

  app.get('/webhooks/:endpointId/rotate', { schema: { params: EndpointParams } }, async (request, reply) => {
    const endpoint = endpointRow(await webhooks.getEndpoint(accountOf(request), request.params.endpointId));
    return render(request, reply, 'webhook-rotate', { title: 'Rotate a signing secret', endpoint });
  });

  app.post('/webhooks/:endpointId/rotate', { schema: { params: EndpointParams, body: EmptyForm } }, async (request, reply) => {
    const { endpoint, secret } = await webhooks.rotateSecret(accountOf(request), request.params.endpointId, { context: portalAuditContext(request) });
    const notice = 'The secret was rotated. For 24 hours every delivery is signed with both the new and the previous secret.';
    return showEndpoints(request, reply, { newSecret: { secret, url: endpoint.url, heading: 'New signing secret' }, notice });
  });

  app.post('/webhooks/:endpointId/redeliver', { schema: { params: EndpointParams, body: RedeliverForm } }, async (request, reply) => {
    const { endpointId } = request.params;
    const { eventId } = request.body;
    await webhooks.redeliver(accountOf(request), eventId, endpointId, { context: portalAuditContext(request) });
    return reply.redirect(`/webhooks/${endpointId}?redelivered=${eventId}`, 303);
  });
}
