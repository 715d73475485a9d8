import { Type, type Static } from 'typebox';
import { cursorField, INVALID_CURSOR_EXAMPLE, nextCursorOrNull, pageLimitField } from '../api/http/page-schemas.js';
import { commonErrorResponses, errorResponse } from '../api/http/error-responses.js';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AUDIT_TARGET_KINDS } from './audit-repository.js';
import { AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_DESCRIPTION, AUDIT_LIMIT_MAX } from './audit-service.js';

const AuditActorSchema = Type.Object(
  {
    kind: Type.String({ enum: [...AUDIT_ACTOR_KINDS], description: 'user (the portal), key (an API key), operator (the CLI) or system.' }),
    id: Type.Optional(
      Type.Integer({ format: 'int64', minimum: 1, description: 'The user\'s or the API key\'s id (never the key itself); absent for operator and system.' }),
    ),
  },
  { title: 'AuditActor', additionalProperties: false, description: 'Who acted.' },
);

const AuditTargetSchema = Type.Object(
  {
    kind: Type.String({ enum: [...AUDIT_TARGET_KINDS], description: 'What kind of thing was acted on.' }),
    id: Type.String({ maxLength: 40, description: 'Its identifier, as decimal text (order ids are int64).' }),
  },
  { title: 'AuditTarget', additionalProperties: false, description: 'What was acted on, when the action has a target.' },
);

const AuditEventSchema = Type.Object(
  {
    id: Type.Unsafe<bigint>({ type: 'integer', format: 'int64', minimum: 1, description: 'The entry\'s identifier; larger is newer.' }),
    at: Type.String({ format: 'date-time', maxLength: 35, description: 'When it happened, ISO 8601 in UTC.' }),
    action: Type.String({
      enum: [...AUDIT_ACTIONS],
      description: 'What happened, named after the OWASP Logging Vocabulary where it has a name (authn_token_created, …).',
    }),
    actor: AuditActorSchema,
    address: Type.Optional(Type.String({ maxLength: 64, description: 'The client\'s IP address, when the action came from a client.' })),
    target: Type.Optional(AuditTargetSchema),
    details: Type.Object(
      {},
      {
        additionalProperties: Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean()]),
        maxProperties: 8,
        description: 'Small facts about the action (e.g. a key\'s name and scopes); never a secret.',
      },
    ),
  },
  { title: 'AuditEvent', additionalProperties: false },
);
export type AuditEventRecord = Static<typeof AuditEventSchema>;

const AUDIT_PAGE_DESCRIPTION = 'One page of the account\'s audit trail, newest first. nextCursor is null on the last page; otherwise pass it as cursor for the next.';

const AuditEventsQuerySchema = Type.Object(
  {
    limit: pageLimitField({ max: AUDIT_LIMIT_MAX, fallback: AUDIT_LIMIT_DEFAULT, description: AUDIT_LIMIT_DESCRIPTION }),
    cursor: cursorField('the nextCursor of the previous page, unchanged.'),
  },
  { additionalProperties: false },
);
export const AUDIT_EVENTS_PARAMETERS: readonly string[] = Object.keys(AuditEventsQuerySchema.properties);

const AUDIT_EVENT_EXAMPLES = [
  {
    id: 3,
    at: '2026-11-24T10:02:00.000Z',
    action: 'order_cancelled',
    actor: { kind: 'key', id: 12 },
    address: '203.0.113.7',
    target: { kind: 'order', id: '1001' },
    details: {},
  },
  {
    id: 2,
    at: '2026-11-24T10:00:00.000Z',
    action: 'authn_token_created',
    actor: { kind: 'operator' },
    target: { kind: 'api_key', id: '12' },
    details: { name: 'checkout', scopes: 'orders:read orders:write' },
  },
] as const;

export const listAuditEventsSchema = {
  operationId: 'listAuditEvents',
  tags: ['audit'],
  'x-stability': 'beta',
  summary: 'List the audit trail (beta)',
  description:
    "Returns the account's audit trail, newest first, one page at a time: who (a user, an API key, the operator or the system) " +
    'did what (sign-ins, API key creations, rolls and revocations, order cancellations and shipments, …), when and from which address. ' +
    'Entries are kept for the retention period the operator configures (90 days by default).',
  querystring: AuditEventsQuerySchema,
  response: {
    200: Type.Object(
      {
        data: Type.Array(AuditEventSchema, { maxItems: AUDIT_LIMIT_MAX, description: `The entries of this page, newest first: at most limit (at most ${AUDIT_LIMIT_MAX}).` }),
        nextCursor: nextCursorOrNull(),
      },
      {
        title: 'AuditEventsPage',
        additionalProperties: false,
        description: AUDIT_PAGE_DESCRIPTION,
        examples: [{ data: AUDIT_EVENT_EXAMPLES, nextCursor: 'eyJhIjoxLCJmIjoiYXVkaXQtZXZlbnRzIiwiayI6IjIifQ.c2lnbmF0dXJlLW9mLTE2Yg' }],
      },
    ),
    ...commonErrorResponses('audit:read'),
    400: errorResponse(
      'A query parameter is unknown, repeated, empty or malformed (validation_failed), or the cursor is not the nextCursor of this listing: altered or of another account (invalid_cursor).',
      [
        { code: 'validation_failed', message: `Query parameter limit is not valid. Expected: ${AUDIT_LIMIT_DESCRIPTION}` },
        INVALID_CURSOR_EXAMPLE,
      ],
    ),
  },
} as const;
