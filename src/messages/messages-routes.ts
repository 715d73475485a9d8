import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../errors/errors.js';
import { principalOf } from '../http/authentication.js';
import type { Message } from './messages-repository.js';
import { getMessageSchema, MESSAGES_BODY_LIMIT_BYTES, sendMessageSchema, type MessageRecord } from './messages-schemas.js';
import type { MessagesService } from './messages-service.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const toRecord = (message: Message): MessageRecord => ({
  id: message.id,
  message: message.message,
  status: message.status,
  createdAt: message.createdAt,
});

/**
 * The spec's rule (sections 4.3 and 7): a missing or non-JSON Content-Type is
 * a 400, not a 415. JSON means the media type application/json, with any
 * parameters; a charset, if given, must be UTF-8 (RFC 8259 §8.1).
 */
function requireJsonContentType(request: FastifyRequest): void {
  const header = request.headers['content-type'];
  if (header === undefined || header.trim() === '') {
    throw new AppError('content_type_not_json', 'Send the body as JSON with Content-Type: application/json.');
  }
  const [essence = '', ...parameters] = header.split(';').map((part) => part.trim());
  if (essence.toLowerCase() !== 'application/json') {
    throw new AppError('content_type_not_json', 'The Content-Type must be application/json.');
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (name.toLowerCase() === 'charset' && value.replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') {
      throw new AppError('content_type_not_json', 'JSON bodies must be UTF-8: omit charset or send charset=utf-8.');
    }
  }
}

/** Parses a JSON object body strictly: valid UTF-8, valid JSON, an object (not null, an array or a scalar). */
function parseJsonObject(body: Buffer): unknown {
  if (body.length === 0) throw new AppError('malformed_request', 'The request body is empty; send a JSON object such as {"message": "Hello"}.');
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    throw new AppError('malformed_request', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('malformed_request', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('The request body must be a JSON object such as {"message": "Hello"}.');
  }
  return value;
}

/** The quickstart `messages` operations. Expects to be registered behind requireApiKey, in its own scope. */
export function registerMessagesRoutes(scope: FastifyInstance, { messagesService }: { messagesService: MessagesService }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  // Only our strict JSON parser: every other media type is refused by the
  // preParsing check before its body is read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MESSAGES_BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, parseJsonObject(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.post(
    '/messages',
    {
      config: { scope: 'messages:write', inputs: { message: ['body', 'message'], idempotencyKey: ['headers', 'idempotency-key'] } },
      schema: sendMessageSchema,
      bodyLimit: MESSAGES_BODY_LIMIT_BYTES,
      preParsing: async (request) => {
        requireJsonContentType(request);
      },
    },
    async (request, reply) => {
      const { message, replayed } = await messagesService.queueMessage({
        accountId: principalOf(request).accountId,
        message: request.body.message,
        idempotencyKey: request.headers['idempotency-key'],
      });
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).header('location', `/messages/${encodeURIComponent(message.id)}`).send(toRecord(message));
    },
  );

  // Reading a message back needs messages:write too: the scope list (issue 8)
  // has no messages:read, and only a key that may send messages has any to read.
  app.get('/messages/:id', { config: { scope: 'messages:write' }, schema: getMessageSchema }, async (request) => {
    return toRecord(await messagesService.getMessage(principalOf(request).accountId, request.params.id));
  });
}
