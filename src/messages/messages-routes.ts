import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../api/http/authentication.js';
import { parseJsonObject, requireJsonContentType } from '../http/json-body.js';
import type { Message } from './messages-repository.js';
import { getMessageSchema, MESSAGES_BODY_LIMIT_BYTES, sendMessageSchema, type MessageRecord } from './messages-schemas.js';
import type { MessagesService } from './messages-service.js';

const toRecord = (message: Message): MessageRecord => ({
  id: message.id,
  message: message.message,
  status: message.status,
  createdAt: message.createdAt,
});

/** The quickstart `messages` operations. Expects to be registered behind requireApiKey, in its own scope. */
export function registerMessagesRoutes(scope: FastifyInstance, { messagesService }: { messagesService: MessagesService }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  // Only our strict JSON parser: every other media type is refused by the
  // preParsing check before its body is read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MESSAGES_BODY_LIMIT_BYTES }, (_request, body, done) => {
    try {
      done(null, parseJsonObject(body as Buffer, '{"message": "Hello"}'));
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
