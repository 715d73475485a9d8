import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ValidationError } from '../errors/errors.js';
import { principalOf } from '../api/http/authentication.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';
import { invalidParameterMessage, refuseUnknownParameters } from '../api/http/validation-errors.js';
import { PAGE_LIMIT_DEFAULT } from '../api/page-bounds.js';
import { normalizeDateTime } from '../shared/date-time.js';
import type { EventType } from './event-types.js';
import type { EventFilter } from './events-repository.js';
import type { EventsService, ListEventsRequest } from './events-service.js';
import { CREATED_DESCRIPTION, getEventSchema, LIST_EVENTS_PARAMETERS, listEventsSchema, type ListEventsQuery } from './events-schemas.js';

/**
 * The v2 (beta) events operations. Expects to be registered under /v2,
 * behind requireApiKey. Events are stored as the JSON text they are sent as:
 * the bodies are assembled from it, never re-serialized.
 */
export function registerEventsRoutes(scope: FastifyInstance, { eventsService }: { eventsService: EventsService }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/events',
    {
      schema: listEventsSchema,
      config: { scope: 'events:read', inputs: { cursor: ['querystring', 'cursor'], limit: ['querystring', 'limit'] } },
      // Before validation: the validator silently drops unknown parameters.
      preValidation: refuseUnknownParameters(LIST_EVENTS_PARAMETERS),
    },
    async (request, reply) => {
      const page = await eventsService.listEvents(principalOf(request).accountId, parseEventsQuery(request.query));
      const body = `{"data":[${page.events.map((event) => event.payload).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
      // Already JSON: sent through the untyped reply, as text.
      const untyped: FastifyReply = reply;
      return untyped.type(JSON_CONTENT_TYPE).send(body);
    },
  );

  app.get('/events/:eventId', { schema: getEventSchema, config: { scope: 'events:read' } }, async (request, reply) => {
    const event = await eventsService.getEvent(principalOf(request).accountId, request.params.eventId);
    const untyped: FastifyReply = reply;
    return untyped.type(JSON_CONTENT_TYPE).send(event.payload);
  });
}

/** The schema-checked query strings as typed filters: instants normalised to UTC; each refusal names its parameter. */
function parseEventsQuery(query: ListEventsQuery): ListEventsRequest {
  const filter: EventFilter = {};
  if (query.type !== undefined && query.type.length > 0) filter.types = query.type as EventType[];
  for (const name of ['createdFrom', 'createdTo'] as const) {
    const text = query[name];
    if (text === undefined) continue;
    const instant = normalizeDateTime(text);
    if (instant === undefined) throw new ValidationError(invalidParameterMessage('querystring', name, CREATED_DESCRIPTION));
    filter[name] = instant;
  }
  if (filter.createdFrom !== undefined && filter.createdTo !== undefined && filter.createdFrom > filter.createdTo) {
    throw new ValidationError('Query parameter createdTo is not valid: it must not be earlier than createdFrom.');
  }
  // The schema checked the shape; the service checks the range.
  const limit = query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
  return { filter, limit, cursor: query.cursor };
}
