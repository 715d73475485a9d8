import { Type, type Static } from 'typebox';
import { ErrorRecordSchema } from '../http/error-schema.js';
import { MESSAGE_STATUSES } from './messages-repository.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, MESSAGE_MAX_CHARACTERS } from './messages-service.js';

/** The largest request body POST /messages reads (413 beyond). Any valid `message`, even fully \u-escaped, fits. */
export const MESSAGES_BODY_LIMIT_BYTES = 64 * 1024;

export const MESSAGE_DESCRIPTION = `The text to send: 1 to ${MESSAGE_MAX_CHARACTERS} Unicode characters, stored and returned exactly as sent.`;

export const SendMessageBodySchema = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX_CHARACTERS, description: MESSAGE_DESCRIPTION }) },
  { title: 'SendMessageRequest', additionalProperties: false },
);
export type SendMessageBody = Static<typeof SendMessageBodySchema>;

/** The spec's quickstart message record (section 2). */
export const MessageSchema = Type.Object(
  {
    id: Type.String({ description: 'Unique message identifier.' }),
    message: Type.String({ description: 'The message text, exactly as sent.' }),
    status: Type.String({
      enum: [...MESSAGE_STATUSES],
      description: '`queued`: stored and waiting to be sent (the only status POST returns); `sent`: delivered; `failed`: delivery gave up after repeated attempts.',
    }),
    createdAt: Type.String({ format: 'date-time', description: 'When the message was queued, ISO 8601 in UTC.' }),
  },
  { title: 'Message', additionalProperties: false },
);
export type MessageRecord = Static<typeof MessageSchema>;

const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      description: `Optional, 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (a UUID works well). Retrying with the same key and the same body within 24 hours returns the first response instead of queueing again; the same key with a different body is refused with 422.`,
    }),
  ),
});

export const sendMessageSchema = {
  operationId: 'sendMessage',
  tags: ['messages'],
  summary: 'Queue a message',
  description:
    `Stores the message durably and queues it for delivery; a background dispatcher sends it. Requires Content-Type: application/json. ` +
    `Bodies over ${MESSAGES_BODY_LIMIT_BYTES} bytes are refused with 413.`,
  headers: IdempotencyKeyHeaders,
  body: SendMessageBodySchema,
  response: {
    202: { ...MessageSchema, description: 'Queued. Location names the message; GET it for its current status.' },
    400: ErrorRecordSchema,
    401: ErrorRecordSchema,
    413: ErrorRecordSchema,
    422: ErrorRecordSchema,
  },
} as const;

export const MessageIdParamsSchema = Type.Object({ id: Type.String({ description: 'The message id returned by sendMessage.' }) });

export const getMessageSchema = {
  operationId: 'getMessage',
  tags: ['messages'],
  summary: 'Get a message and its status',
  params: MessageIdParamsSchema,
  response: {
    200: MessageSchema,
    401: ErrorRecordSchema,
    404: ErrorRecordSchema,
  },
} as const;
