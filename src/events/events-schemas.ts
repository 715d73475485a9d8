import { Type, type Static } from 'typebox';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { MessageSchema } from '../messages/messages-schemas.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../api/page-bounds.js';
import { OrderV2Schema } from '../orders/v2/orders-v2-schemas.js';
import { INVALID_CURSOR_EXAMPLE, PAGE_QUERY_FIELDS } from '../api/http/page-schemas.js';
import { EVENT_TYPE_DESCRIPTIONS, EVENT_TYPES, MESSAGE_EVENT_TYPES, ORDER_EVENT_TYPES, type EventType } from './event-types.js';

/** Marks the events operations in the OpenAPI document (spec section 9.4). */
const BETA = { 'x-stability': 'beta' } as const;

const EVENT_ID_EXAMPLE = 'evt_5f0c6a1e9b2d4c3f8a7e6d5c4b3a2910';
const CURSOR_EXAMPLE = 'eyJhIjoxLCJmIjoiM3FfZ3Z6b2xEQTBxYWh1Vk5nVmJmQSIsImsiOiIyIn0.c2lnbmF0dXJlLW9mLTE2Yg';

const EventIdSchema = Type.String({ pattern: '^evt_[0-9a-f]{32}$', maxLength: 36, description: 'Unique event identifier: `evt_` and 32 hex digits.' });
const CreatedAtSchema = Type.String({ format: 'date-time', maxLength: 30, description: 'When the change happened (and was committed with this event), ISO 8601 in UTC.' });

const typesList = (types: readonly EventType[]) => types.map((type) => `\`${type}\``).join(', ');

/** An order event: the order as it was right after the change. */
export const OrderEventSchema = Type.Object(
  {
    id: EventIdSchema,
    type: Type.String({ enum: [...ORDER_EVENT_TYPES], description: `One of ${typesList(ORDER_EVENT_TYPES)}.` }),
    createdAt: CreatedAtSchema,
    data: Type.Object({ order: OrderV2Schema }, { additionalProperties: false, description: 'The order right after the change.' }),
  },
  { title: 'OrderEvent', additionalProperties: false },
);

/** A quickstart message event: the message as it was when its delivery ended. */
export const MessageEventSchema = Type.Object(
  {
    id: EventIdSchema,
    type: Type.String({ enum: [...MESSAGE_EVENT_TYPES], description: `One of ${typesList(MESSAGE_EVENT_TYPES)}.` }),
    createdAt: CreatedAtSchema,
    data: Type.Object({ message: MessageSchema }, { additionalProperties: false, description: 'The message when its delivery ended.' }),
  },
  { title: 'MessageEvent', additionalProperties: false },
);

const EventSchema = Type.Union([OrderEventSchema, MessageEventSchema], {
  description: 'An event: what changed (`type`), when, and the order or message right after the change.',
});

/** One example Event record per type, as sent. */
export const EVENT_EXAMPLES: Readonly<Record<EventType, unknown>> = {
  'order.created': {
    id: 'evt_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    type: 'order.created',
    createdAt: '2026-11-22T09:58:00.000Z',
    data: { order: { id: 1001, status: 'pending', complete: false, petId: 42, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z' } },
  },
  'order.shipped': {
    id: 'evt_1b2c3d4e5f60718293a4b5c6d7e8f90a',
    type: 'order.shipped',
    createdAt: '2026-11-22T10:05:00.000Z',
    data: { order: { id: 1003, status: 'shipped', complete: false, petId: 9, quantity: 1 } },
  },
  'order.cancelled': {
    id: EVENT_ID_EXAMPLE,
    type: 'order.cancelled',
    createdAt: '2026-11-22T10:00:00.000Z',
    data: { order: { id: 1002, status: 'cancelled', complete: false, petId: 7, quantity: 1 } },
  },
  'message.sent': {
    id: 'evt_2c3d4e5f60718293a4b5c6d7e8f90a1b',
    type: 'message.sent',
    createdAt: '2026-11-22T10:00:01.000Z',
    data: { message: { id: '0b8a3f7e-5c1d-4e2a-9f60-7d4c3b2a1e09', message: 'Hello from the quickstart 👋', status: 'sent', createdAt: '2026-11-22T10:00:00.000Z' } },
  },
  'message.failed': {
    id: 'evt_3d4e5f60718293a4b5c6d7e8f90a1b2c',
    type: 'message.failed',
    createdAt: '2026-11-22T10:30:00.000Z',
    data: { message: { id: '6f1c2a4e-9b7d-4c55-8e0e-3d2b1a0f9c87', message: 'Hello again', status: 'failed', createdAt: '2026-11-22T10:00:00.000Z' } },
  },
};

const EVENTS_PAGE_DESCRIPTION =
  'One page of the feed, oldest first in commit order. nextCursor is always present: pass it as cursor, with the same filters, ' +
  'for what follows. A page shorter than limit means you have caught up; the same cursor later returns only events committed since.';

export const CREATED_DESCRIPTION = 'an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.';

/** Strings on purpose, as the v2 orders listing: the route parses each exactly (parseEventsQuery). */
const ListEventsQuerySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Array(Type.String({ enum: [...EVENT_TYPES], description: `one of ${EVENT_TYPES.join(', ')}, each at most once.` }), {
        uniqueItems: true,
        maxItems: EVENT_TYPES.length,
        description: 'Only events of one of these types; repeat the parameter for several (type=order.cancelled&type=order.shipped). Default: every type.',
      }),
    ),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', maxLength: 64, description: `only events created at or after this instant: ${CREATED_DESCRIPTION}` })),
    createdTo: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: `only events created before this instant (the range is half-open): ${CREATED_DESCRIPTION}` }),
    ),
    ...PAGE_QUERY_FIELDS,
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuerySchema>;
export const LIST_EVENTS_PARAMETERS: readonly string[] = Object.keys(ListEventsQuerySchema.properties);

const EventIdParamsSchema = Type.Object({
  eventId: Type.String({ minLength: 1, maxLength: 64, description: 'The event id, e.g. from the feed or a webhook delivery.', examples: [EVENT_ID_EXAMPLE] }),
});

export const listEventsSchema = {
  operationId: 'listEvents',
  tags: ['events'],
  ...BETA,
  summary: 'List events, oldest first (beta)',
  description:
    "Returns the account's events in the order they were committed, one page at a time, filtered by type and creation time. " +
    'A client that walks to the end and resumes from its last cursor, however often, sees every event exactly once. ' +
    'Events are kept for 30 days by default (EVENTS_RETENTION_DAYS).',
  querystring: ListEventsQuerySchema,
  response: {
    200: Type.Object(
      {
        data: Type.Array(EventSchema, { maxItems: PAGE_LIMIT_MAX, description: `The events of this page, oldest first: at most limit (at most ${PAGE_LIMIT_MAX}).` }),
        nextCursor: Type.String({ maxLength: 512, description: 'Opaque cursor of what follows this page; never null.' }),
      },
      {
        title: 'EventsPage',
        additionalProperties: false,
        description: EVENTS_PAGE_DESCRIPTION,
        examples: [{ data: [EVENT_EXAMPLES['order.created'], EVENT_EXAMPLES['order.cancelled']], nextCursor: CURSOR_EXAMPLE }],
      },
    ),
    ...commonErrorResponses('events:read'),
    400: errorResponse(
      'A query parameter is unknown, repeated, empty or malformed (validation_failed; the message names it and never repeats its value), ' +
        'or the cursor is not a nextCursor of this feed: altered, of another account or sent with other filters (invalid_cursor).',
      [
        { code: 'validation_failed', message: `Query parameter limit is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}` },
        INVALID_CURSOR_EXAMPLE,
      ],
    ),
  },
} as const;

export const getEventSchema = {
  operationId: 'getEvent',
  tags: ['events'],
  ...BETA,
  summary: 'Get one event (beta)',
  description: 'Returns an event of the account, exactly as the feed and webhook deliveries carry it.',
  params: EventIdParamsSchema,
  response: {
    200: Type.Union([OrderEventSchema, MessageEventSchema], {
      description: 'The event.',
      examples: [EVENT_EXAMPLES['order.cancelled']],
    }),
    ...commonErrorResponses('events:read'),
    400: errorResponse('The eventId is longer than 64 characters (validation_failed).', {
      code: 'validation_failed',
      message: 'Path parameter eventId is not valid. Expected: The event id, e.g. from the feed or a webhook delivery.',
    }),
    404: errorResponse("No such event for this account (missing, pruned, or another account's: the same answer) (event_not_found).", {
      code: 'event_not_found',
      message: `Event ${EVENT_ID_EXAMPLE} was not found.`,
    }),
  },
} as const;

/** Each type's sentence, for the documents. */
export const EVENT_TYPE_LIST = EVENT_TYPES.map((type) => `- \`${type}\`: ${EVENT_TYPE_DESCRIPTIONS[type]}`).join('\n');

/** The webhook.test event (POST /v2/webhook-endpoints/{id}/test): never in the feed. */
export const TestEventSchema = Type.Object(
  {
    id: Type.String({ maxLength: 40, description: 'The event id; also the webhook-id header.' }),
    type: Type.Literal('webhook.test'),
    createdAt: Type.String({ format: 'date-time', maxLength: 30 }),
    data: Type.Object({ endpoint: Type.Object({ id: Type.String({ maxLength: 35 }) }, { additionalProperties: false }) }, { additionalProperties: false }),
  },
  { title: 'WebhookTestEvent', additionalProperties: false, examples: [{ id: 'evt_0b8a3f7e5c1d4e2a9f607d4c3b2a1e09', type: 'webhook.test', createdAt: '2026-11-24T10:00:00.000Z', data: { endpoint: { id: 'we_5f0c9d1e2b3a4c5d6e7f8091a2b3c4d5' } } }] },
);
