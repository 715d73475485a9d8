import { EVENT_TYPE_DESCRIPTIONS, EVENT_TYPES, MESSAGE_EVENT_TYPES, TEST_EVENT_DESCRIPTION, TEST_EVENT_TYPE, type EventType } from './event-types.js';
import { EVENT_EXAMPLES, MessageEventSchema, OrderEventSchema, TestEventSchema } from './events-schemas.js';

const isMessageEvent = (type: EventType) => (MESSAGE_EVENT_TYPES as readonly EventType[]).includes(type);

/** `order.cancelled` -> `orderCancelledEvent`. */
const operationId = (type: EventType) => `${type.replace(/\.(\w)/g, (_match, letter: string) => letter.toUpperCase())}Event`;

/**
 * The v2 document's OpenAPI 3.1 `webhooks` map: one entry per event type,
 * describing the request this service sends to a subscribed endpoint (the
 * same Event record as GET /v2/events returns).
 */
export function eventWebhooks(): Record<string, unknown> {
  return {
    ...catalogueWebhooks(),
    [TEST_EVENT_TYPE]: {
      post: {
        operationId: 'webhookTestEvent',
        tags: ['events'],
        'x-stability': 'beta',
        summary: `The ${TEST_EVENT_TYPE} event (beta)`,
        description: `${TEST_EVENT_DESCRIPTION} Signed like every event.`,
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: TestEventSchema } } },
        responses: { '200': { description: 'Any 2xx status acknowledges it; what the endpoint answered is the answer of the test request.' } },
      },
    },
  };
}

function catalogueWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: operationId(type),
          tags: ['events'],
          'x-stability': 'beta',
          summary: `The ${type} event (beta)`,
          description: `${EVENT_TYPE_DESCRIPTIONS[type]} Sent to every enabled webhook endpoint subscribed to \`${type}\`; the body is the Event record.`,
          security: [],
          requestBody: {
            required: true,
            description: 'The Event record, exactly as GET /v2/events/{eventId} returns it.',
            content: {
              'application/json': {
                schema: isMessageEvent(type) ? MessageEventSchema : OrderEventSchema,
                examples: { [type]: { summary: `A ${type} event`, value: EVENT_EXAMPLES[type] } },
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx status acknowledges the event; anything else, a timeout or a connection error is retried later.' },
          },
        },
      },
    ]),
  );
}
