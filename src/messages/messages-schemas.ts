import { Type, type Static } from 'typebox';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { MESSAGE_STATUSES } from './messages-repository.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../idempotency/idempotency-service.js';
import { MESSAGE_MAX_CHARACTERS } from './messages-bounds.js';

/** The largest request body POST /messages reads (413 beyond). Any valid `message`, even fully \u-escaped, fits. */
export const MESSAGES_BODY_LIMIT_BYTES = 64 * 1024;

const MESSAGE_DESCRIPTION = `The text to send: 1 to ${MESSAGE_MAX_CHARACTERS} Unicode characters, stored and returned exactly as sent.`;

const SendMessageBodySchema = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX_CHARACTERS, description: MESSAGE_DESCRIPTION }) },
  { title: 'SendMessageRequest', additionalProperties: false },
);

/** The spec's quickstart message record (section 2). */
export const MessageSchema = Type.Object(
  {
    id: Type.String({ maxLength: 100, description: 'Unique message identifier.' }),
    message: Type.String({ maxLength: MESSAGE_MAX_CHARACTERS, description: 'The message text, exactly as sent.' }),
    status: Type.String({
      enum: [...MESSAGE_STATUSES],
      maxLength: 6,
      description: '`queued`: stored and waiting to be sent (the only status POST returns); `sent`: delivered; `failed`: delivery gave up after repeated attempts.',
    }),
    createdAt: Type.String({ format: 'date-time', maxLength: 30, description: 'When the message was queued, ISO 8601 in UTC.' }),
  },
  { title: 'Message', additionalProperties: false },
);
export type MessageRecord = Static<typeof MessageSchema>;

const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      examples: ['6f1c2a4e-9b7d-4c55-8e0e-3d2b1a0f9c87'],
      description: `Optional, 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (a UUID works well). Retrying with the same key and the same body within 24 hours returns the first response instead of queueing again; the same key with a different body is refused with 422.`,
    }),
  ),
});

const MESSAGE_EXAMPLE = {
  id: '0b8a3f7e-5c1d-4e2a-9f60-7d4c3b2a1e09',
  message: 'Hello from the quickstart 👋',
  status: 'queued',
  createdAt: '2026-11-22T10:00:00.000Z',
};

const ID_EXAMPLE = MESSAGE_EXAMPLE.id;

export const sendMessageSchema = {
  operationId: 'sendMessage',
  tags: ['messages'],
  'x-stability': 'stable',
  summary: 'Queue a message',
  description:
    'Stores the message durably and queues it for delivery; a background dispatcher sends it and retries failed deliveries ' +
    `with exponential back-off. Requires Content-Type: application/json. Bodies over ${MESSAGES_BODY_LIMIT_BYTES} bytes are refused with 413.`,
  headers: IdempotencyKeyHeaders,
  body: SendMessageBodySchema,
  response: {
    202: {
      ...MessageSchema,
      description: 'Queued. Location names the message; GET it for its current status.',
      examples: [MESSAGE_EXAMPLE],
      headers: {
        Location: { type: 'string', maxLength: 300, description: 'The message: /messages/{id}.', examples: [`/messages/${ID_EXAMPLE}`] },
        'Idempotent-Replayed': {
          type: 'string',
          enum: ['true'],
          maxLength: 4,
          description: 'Present when this is the replayed first response to an earlier request with the same Idempotency-Key.',
        },
      },
    },
    ...commonErrorResponses('messages:write'),
    400: errorResponse(
      'The body is empty, not valid JSON or not UTF-8 (malformed_request); Content-Type is missing or not application/json (content_type_not_json); ' +
        'the body is not an object, or message is missing, null, not a string, empty, too long, or has NUL or a lone surrogate, or there are other fields, ' +
        `or the Idempotency-Key is empty, longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters or not visible ASCII (validation_failed).`,
      { code: 'content_type_not_json', message: 'The Content-Type must be application/json.' },
    ),
    413: errorResponse(`The body is over ${MESSAGES_BODY_LIMIT_BYTES} bytes (payload_too_large).`, {
      code: 'payload_too_large',
      message: 'The request body is larger than this endpoint accepts.',
    }),
    422: errorResponse('The Idempotency-Key was used in the last 24 hours with a different body (idempotency_key_reused).', {
      code: 'idempotency_key_reused',
      message: 'This Idempotency-Key was already used with a different request body in the last 24 hours; use a new key for a new message.',
    }),
  },
} as const;

const MessageIdParamsSchema = Type.Object({
  id: Type.String({ maxLength: 100, description: 'The message id returned by sendMessage.', examples: [ID_EXAMPLE] }),
});

export const getMessageSchema = {
  operationId: 'getMessage',
  tags: ['messages'],
  'x-stability': 'beta',
  summary: 'Get a message and its status',
  description: 'Returns the message with its current status: queued, sent or failed. Another account\'s message is not found.',
  params: MessageIdParamsSchema,
  response: {
    200: { ...MessageSchema, description: 'The message.', examples: [{ ...MESSAGE_EXAMPLE, status: 'sent' }] },
    ...commonErrorResponses('messages:write'),
    404: errorResponse('No such message for this account (message_not_found).', {
      code: 'message_not_found',
      message: 'No message with this id exists.',
    }),
  },
} as const;
