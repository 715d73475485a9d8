import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyScope } from '../../api-keys/api-key-scopes.js';
import type { KeyUsageRecorder } from '../../api-keys/api-key-usage.js';
import type { ApiKeyPrincipal } from '../../api-keys/api-keys-repository.js';
import type { ApiKeysService, Authentication } from '../../api-keys/api-keys-service.js';
import { AppError } from '../../errors/errors.js';
import { enforceRateLimit, type RateLimiter } from '../../http/protection/rate-limit.js';

const AUTH_REALM = 'store-orders';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, set by requireApiKey on protected routes. */
    principal: ApiKeyPrincipal | null;
  }
  interface FastifyContextConfig {
    /** The scope a key needs for this route. Every route behind requireApiKey must declare one. */
    scope?: ApiKeyScope;
  }
}

/** RFC 6750 §2.1: "Bearer" (any case), one or more spaces, a token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function missingKey(message: string): AppError {
  return new AppError('missing_api_key', message, { 'www-authenticate': `Bearer realm="${AUTH_REALM}"` });
}

function invalidKey(message: string, code: 'invalid_api_key' | 'expired_api_key' = 'invalid_api_key'): AppError {
  return new AppError(code, message, {
    'www-authenticate': `Bearer realm="${AUTH_REALM}", error="invalid_token"`,
  });
}

/** The 403 for a key without `scope`; also the documented example of every operation needing it. */
export function insufficientScope(scope: ApiKeyScope): AppError {
  return new AppError('insufficient_scope', `This API key lacks the scope ${scope} that this operation needs.`, {
    'www-authenticate': `Bearer realm="${AUTH_REALM}", error="insufficient_scope", scope="${scope}"`,
  });
}

/** Required, so that no protected scope can be registered without rate limiting and usage tracking. */
export interface GuardOptions {
  /** Counts requests per key, and failed authentications per client address. */
  rateLimiter: RateLimiter;
  /** Notes each key's last use. */
  keyUsage: Pick<KeyUsageRecorder, 'touch'>;
}

/**
 * The API key of `Authorization: Bearer <API key>`, or why there is none.
 * Every Authorization header is looked at, as sent: Node keeps only the
 * first, and two are refused.
 */
function bearerToken(rawHeaders: readonly string[]): string | AppError {
  let header: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() !== 'authorization') continue;
    if (header !== undefined) return invalidKey('Send exactly one Authorization header.');
    header = rawHeaders[i + 1] ?? '';
  }
  if (header === undefined) return missingKey('An API key is required: send Authorization: Bearer <API key>.');
  const match = BEARER.exec(header);
  if (match?.[1] === undefined) return invalidKey('The Authorization header must be: Bearer <API key>.');
  return match[1];
}

/**
 * Requires `Authorization: Bearer <API key>` on every route of `scope`, and
 * the key to hold the scope the route declares (route config `scope`; a
 * route without one cannot be registered here). It runs before the body is
 * read, so an unauthenticated caller costs little. Keys are accepted from
 * that header only, never from the query string.
 *
 * Rate limiting happens here too: an authenticated request counts against
 * its key, a failed authentication against the client address, so guessing
 * keys is throttled per address.
 */
export function requireApiKey(scope: FastifyInstance, apiKeys: Pick<ApiKeysService, 'authenticate'>, { rateLimiter, keyUsage }: GuardOptions): void {
  scope.decorateRequest('principal', null);
  scope.addHook('onRoute', (route) => {
    if (route.config?.scope === undefined) throw new Error(`Route ${route.url} needs a scope in its config: it is behind requireApiKey.`);
  });
  scope.addHook('onRequest', async (request, reply) => {
    const needed = request.routeOptions.config.scope;
    let checked: CheckedKey;
    try {
      const result = await checkKey(request.raw.rawHeaders, apiKeys, needed);
      if (!result.ok) throw result.error;
      checked = result;
    } catch (error) {
      enforceRateLimit(rateLimiter, `ip:${request.ip}`, reply);
      throw error;
    }
    const { principal } = checked;
    enforceRateLimit(rateLimiter, `key:${principal.keyId}`, reply);
    keyUsage.touch(principal.keyId);
    request.principal = principal;
    if (!checked.inScope) throw insufficientScope(needed ?? 'orders:read');
  });
}

/** A key that authenticated, and whether it holds the scope asked for. */
export interface CheckedKey {
  ok: true;
  principal: ApiKeyPrincipal;
  inScope: boolean;
}

/**
 * The one check of a request's key and scope, made by requireApiKey and by
 * any fast path in front of Fastify: the Bearer token of the raw headers,
 * authenticated through the key cache (revocation, expiry and scopes apply),
 * and whether it holds `scope` (never, when no scope is named).
 */
async function checkKey(
  rawHeaders: readonly string[],
  apiKeys: Pick<ApiKeysService, 'authenticate'>,
  scope: ApiKeyScope | undefined,
): Promise<CheckedKey | { ok: false; error: AppError }> {
  const token = bearerToken(rawHeaders);
  if (typeof token !== 'string') return { ok: false, error: token };
  const result = await apiKeys.authenticate(token);
  if (!result.ok) return { ok: false, error: invalidKey(result.message, result.code) };
  const { principal } = result;
  return { ok: true, principal, inScope: scope !== undefined && principal.scopes.includes(scope) };
}

/**
 * checkKey in two synchronous halves around the caller's own
 * `apiKeys.authenticate(token)`, for a fast path that needs no explanation
 * of a refusal (it hands those to the route): the token of the one
 * Authorization header, and the principal if it authenticated and holds
 * `scope`. No promise or record of its own per request.
 */
export function bearerKey(rawHeaders: readonly string[]): string | undefined {
  const token = bearerToken(rawHeaders);
  return typeof token === 'string' ? token : undefined;
}

/** See bearerKey. */
export function principalInScope(result: Authentication, scope: ApiKeyScope): ApiKeyPrincipal | undefined {
  return result.ok && result.principal.scopes.includes(scope) ? result.principal : undefined;
}

/** The authenticated principal of a request on a protected route. */
export function principalOf(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal === null) throw new Error('principalOf() used on a route without requireApiKey');
  return request.principal;
}
