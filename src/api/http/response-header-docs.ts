import { errorResponse, RATE_LIMIT_HEADER_DOCS, type HeaderDoc } from './error-responses.js';
import { SECURITY_HEADER_ENTRIES } from '../../http/protection/hardening.js';

/**
 * The response headers the hosts send on every operation whatever it does
 * (request id, security headers, rate limits), and the answers Node's parser
 * gives before any route runs (408, 431) or the body parser gives (413), as
 * the OpenAPI generator adds them to every documented operation. The values
 * come from the code that sends them; test/contract/response-headers.test.ts
 * compares every declared header with what real responses carry.
 */

const REQUEST_ID: Readonly<Record<string, HeaderDoc>> = {
  'X-Request-Id': {
    type: 'string',
    maxLength: 128,
    description: 'The request id: the caller\'s X-Request-Id when short and plain, otherwise a new UUID. Quote it to support; every log line of the request carries it.',
    examples: ['0b8a3f7e-5c1d-4e2a-9f60-7d4c3b2a1e09'],
  },
};

const SECURITY_HEADER_DESCRIPTIONS: Readonly<Record<string, readonly [name: string, description: string]>> = {
  'x-content-type-options': ['X-Content-Type-Options', 'nosniff: the JSON is never sniffed as another type.'],
  'content-security-policy': ['Content-Security-Policy', 'JSON is never a document: nothing may load, frame or embed it.'],
  'x-frame-options': ['X-Frame-Options', 'DENY: no page may frame the response.'],
  'referrer-policy': ['Referrer-Policy', 'no-referrer.'],
};

const fixed = (name: string, value: string, description: string): Record<string, HeaderDoc> => ({
  [name]: { type: 'string', maxLength: Math.max(64, value.length), description, examples: [value] },
});

const NO_STORE = fixed('Cache-Control', 'no-store', 'no-store: answers carry account data; no cache may keep them (a listing with an ETag says otherwise).');

const SECURITY_HEADERS: Readonly<Record<string, HeaderDoc>> = Object.fromEntries(
  SECURITY_HEADER_ENTRIES.flatMap(([wire, value]) => {
    const described = SECURITY_HEADER_DESCRIPTIONS[wire];
    if (described === undefined) throw new Error(`The security header ${wire} has no documentation in response-header-docs.ts`);
    return Object.entries(fixed(described[0], value, described[1]));
  }),
);

/** What Node's parser answers with (raw-responses.ts): before any hook, so no security or rate-limit headers. */
const RAW_HEADERS: Readonly<Record<string, HeaderDoc>> = {
  ...REQUEST_ID,
  ...fixed('X-Content-Type-Options', 'nosniff', 'nosniff: the JSON is never sniffed as another type.'),
  ...NO_STORE,
};

/**
 * The headers every answer of a route carries besides its own: the request
 * id, the security headers and Cache-Control on each; RateLimit and
 * RateLimit-Policy too on a route behind an API key (counted per key, or per
 * address on a failed authentication; absent when RATE_LIMIT_REQUESTS=0).
 * The parser's own answers (408, 431) carry only RAW_HEADERS.
 */
export function everyResponseHeaders(status: number, { rateLimited }: { rateLimited: boolean }): Readonly<Record<string, HeaderDoc>> {
  if (status === 408 || status === 431) return RAW_HEADERS;
  return { ...REQUEST_ID, ...(rateLimited ? RATE_LIMIT_HEADER_DOCS : {}), ...SECURITY_HEADERS, ...NO_STORE };
}

/**
 * The answers any operation can give before its route runs: 408 (request
 * too slow), 431 (headers too large) and, when the method has a body that
 * Fastify reads (not GET or HEAD), 413 (a body over the host's limit).
 */
export function transportErrorResponses(method: string, bodyLimitBytes: number) {
  const reads = method !== 'GET' && method !== 'HEAD';
  return {
    408: errorResponse('The request headers or body did not arrive in time (request_timeout); the connection is closed.', {
      code: 'request_timeout',
      message: 'The request was not received in time (headers or body too slow).',
    }),
    ...(reads
      ? {
          413: errorResponse(`The request body is over ${bodyLimitBytes} bytes (payload_too_large).`, {
            code: 'payload_too_large',
            message: 'The request body is larger than this endpoint accepts.',
          }),
        }
      : {}),
    431: errorResponse('The request headers are too large (headers_too_large); the connection is closed.', {
      code: 'headers_too_large',
      message: 'The request headers are too large.',
    }),
  };
}
