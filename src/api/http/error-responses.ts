import { Type } from 'typebox';
import type { ApiKeyScope } from '../../api-keys/api-key-scopes.js';
import { ERROR_CODES, errorRecord, type ErrorCode } from '../../errors/errors.js';
import { insufficientScope } from './authentication.js';

/** The spec's Error record; `status` always equals the HTTP status. */
export const ErrorRecordSchema = Type.Object(
  {
    code: Type.String({ enum: ERROR_CODES, description: 'Machine-readable error code, one of a closed set.' }),
    message: Type.String({ maxLength: 2000, description: 'Human-readable description.' }),
    status: Type.Integer({ format: 'int32', minimum: 400, maximum: 599, description: 'The HTTP status code of the response.' }),
  },
  { title: 'Error', additionalProperties: false },
);

export interface HeaderDoc {
  type: 'string';
  description: string;
  pattern?: string;
  maxLength: number;
  examples?: readonly string[];
}

export interface ErrorExample {
  code: ErrorCode;
  message: string;
}

/**
 * A documented error response: the Error record with this response's
 * description, its example (several, named by code, when one status has
 * several codes), and the headers it carries. The generator turns the record
 * itself into the shared `Error` component.
 */
export function errorResponse(
  description: string,
  example: ErrorExample | readonly [ErrorExample, ErrorExample, ...ErrorExample[]],
  headers: Readonly<Record<string, HeaderDoc>> = {},
) {
  const examples = 'code' in example
    ? { examples: [errorRecord(example.code, example.message)] }
    : // @fastify/swagger turns x-examples into the media type's named `examples`.
      { 'x-examples': Object.fromEntries(example.map(({ code, message }) => [code, { summary: code, value: errorRecord(code, message) }])) };
  return Type.Object(ErrorRecordSchema.properties, {
    title: 'Error',
    additionalProperties: false,
    description,
    ...examples,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  });
}

const WWW_AUTHENTICATE: Readonly<Record<string, HeaderDoc>> = {
  'WWW-Authenticate': {
    type: 'string',
    maxLength: 200,
    description: 'RFC 6750 challenge: Bearer realm="store-orders", with error="invalid_token" for a rejected key.',
    examples: ['Bearer realm="store-orders", error="invalid_token"'],
  },
};

/**
 * draft-ietf-httpapi-ratelimit-headers, as sent on every 2xx and 4xx answer
 * of a rate-limited operation (src/http/rate-limit.ts); absent when
 * RATE_LIMIT_REQUESTS=0.
 */
export const RATE_LIMIT_HEADER_DOCS: Readonly<Record<string, HeaderDoc>> = {
  'RateLimit-Policy': {
    type: 'string',
    pattern: '^"default";q=[0-9]+;w=[0-9]+$',
    maxLength: 60,
    description: 'The quota policy: q requests per w seconds, per API key (or per client address without a valid key).',
    examples: ['"default";q=100;w=60'],
  },
  RateLimit: {
    type: 'string',
    pattern: '^"default";r=[0-9]+;t=[0-9]+$',
    maxLength: 60,
    description: 'r requests left in the current window, which resets in t seconds.',
    examples: ['"default";r=42;t=17'],
  },
};

const RETRY_AFTER: Readonly<Record<string, HeaderDoc>> = {
  'Retry-After': { type: 'string', pattern: '^[0-9]+$', maxLength: 10, description: 'Seconds to wait before retrying.', examples: ['17'] },
};

/** Responses every authenticated operation can give, whatever it does; `scope` is the one it needs. */
export function commonErrorResponses(scope: ApiKeyScope, extraHeaders: Readonly<Record<string, HeaderDoc>> = {}) {
  const forbidden = insufficientScope(scope);
  return {
    401: errorResponse(
      'The API key is missing, invalid or expired (missing_api_key, invalid_api_key, expired_api_key).',
      { code: 'missing_api_key', message: 'An API key is required: send Authorization: Bearer <API key>.' },
      { ...WWW_AUTHENTICATE, ...RATE_LIMIT_HEADER_DOCS, ...extraHeaders },
    ),
    403: errorResponse(
      `The API key is valid but lacks the scope ${scope} this operation needs (insufficient_scope).`,
      { code: 'insufficient_scope', message: forbidden.message },
      {
        'WWW-Authenticate': {
          type: 'string',
          maxLength: 200,
          description: 'RFC 6750 challenge naming the scope that is needed.',
          examples: [String(forbidden.headers['www-authenticate'])],
        },
        ...RATE_LIMIT_HEADER_DOCS,
        ...extraHeaders,
      },
    ),
    429: errorResponse(
      'The API key (or, without a valid key, the client address) has spent its quota for the window (rate_limited).',
      { code: 'rate_limited', message: 'Too many requests: the limit is 100 per 60 s. Retry after 17 s.' },
      { ...RETRY_AFTER, ...RATE_LIMIT_HEADER_DOCS, ...extraHeaders },
    ),
    500: errorResponse(
      'An internal error; details are logged, never returned.',
      { code: 'internal_error', message: 'An internal error occurred. It has been logged; retrying may help.' },
      extraHeaders,
    ),
    503: errorResponse(
      'The server is shutting down, overloaded (load shedding) or its database is unreachable; retry after the given delay (service_unavailable, overloaded).',
      { code: 'service_unavailable', message: 'The server is shutting down; retry the request.' },
      {
        'Retry-After': { type: 'string', pattern: '^[0-9]+$', maxLength: 10, description: 'Seconds to wait before retrying.', examples: ['1'] },
        ...extraHeaders,
      },
    ),
  } as const;
}
