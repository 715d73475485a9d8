import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyPrincipal } from '../api-keys/api-keys-repository.js';
import type { ApiKeysService } from '../api-keys/api-keys-service.js';
import { AppError } from '../errors/errors.js';

export const AUTH_REALM = 'store-orders';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, set by requireApiKey on protected routes. */
    principal: ApiKeyPrincipal | null;
  }
}

/** RFC 6750 §2.1: "Bearer" (any case), one or more spaces, a token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function missingKey(message: string): AppError {
  return new AppError('missing_api_key', message, { 'www-authenticate': `Bearer realm="${AUTH_REALM}"` });
}

function invalidKey(message: string): AppError {
  return new AppError('invalid_api_key', message, {
    'www-authenticate': `Bearer realm="${AUTH_REALM}", error="invalid_token"`,
  });
}

/** Every Authorization header of the request, as sent (Node keeps only the first). */
function authorizationHeaders(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'authorization') values.push(raw[i + 1] ?? '');
  }
  return values;
}

/**
 * Requires `Authorization: Bearer <API key>` on every route of `scope`. It
 * runs before the body is read, so an unauthenticated caller costs little.
 * Keys are accepted from that header only, never from the query string.
 */
export function requireApiKey(scope: FastifyInstance, apiKeys: ApiKeysService): void {
  scope.decorateRequest('principal', null);
  scope.addHook('onRequest', async (request) => {
    const headers = authorizationHeaders(request);
    if (headers.length === 0) throw missingKey('An API key is required: send Authorization: Bearer <API key>.');
    if (headers.length > 1) throw invalidKey('Send exactly one Authorization header.');
    const match = BEARER.exec(headers[0] ?? '');
    if (match?.[1] === undefined) throw invalidKey('The Authorization header must be: Bearer <API key>.');
    const result = await apiKeys.authenticate(match[1]);
    if (!result.ok) throw invalidKey(result.message);
    request.principal = result.principal;
  });
}

/** The authenticated principal of a request on a protected route. */
export function principalOf(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal === null) throw new Error('principalOf() used on a route without requireApiKey');
  return request.principal;
}
