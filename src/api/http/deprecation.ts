import type { FastifyInstance } from 'fastify';

export interface DeprecationPolicy {
  deprecatedAt: Date;
  sunsetAt: Date;
  /** Where the deprecation is explained; a URI reference, resolved against the request URL. */
  documentation: string;
}

/**
 * The headers every response of a deprecated operation carries:
 * `Deprecation: @<unix seconds>` (RFC 9745), `Sunset: <IMF-fixdate>`
 * (RFC 8594) and a `Link` to the documentation for both relations.
 */
function deprecationHeaders(policy: DeprecationPolicy): Record<'deprecation' | 'sunset' | 'link', string> {
  const target = `<${policy.documentation}>`;
  return {
    deprecation: `@${Math.floor(policy.deprecatedAt.getTime() / 1000)}`,
    // toUTCString() is exactly IMF-fixdate: "Thu, 01 Jul 2027 00:00:00 GMT".
    sunset: policy.sunsetAt.toUTCString(),
    link: `${target}; rel="deprecation"; type="text/html", ${target}; rel="sunset"; type="text/html"`,
  };
}

/**
 * Adds the deprecation headers to every response of `scope`, error responses
 * included. Register it before authentication so that a 401 carries them too.
 */
export function announceDeprecation(scope: FastifyInstance, policy: DeprecationPolicy): void {
  const headers = deprecationHeaders(policy);
  scope.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
}

/** The three headers as documented in the OpenAPI document. */
export const DEPRECATION_HEADER_DOCS = {
  Deprecation: {
    type: 'string',
    pattern: '^@-?[0-9]+$',
    maxLength: 21,
    description: 'RFC 9745: when the operation was (or will be) deprecated, as @<unix seconds>.',
    examples: ['@1782864000'],
  },
  Sunset: {
    type: 'string',
    maxLength: 29,
    description: 'RFC 8594: when the operation stops answering (then 410), as an IMF-fixdate.',
    examples: ['Thu, 01 Jul 2027 00:00:00 GMT'],
  },
  Link: {
    type: 'string',
    maxLength: 1000,
    description: 'The documentation of the deprecation and the sunset (rel="deprecation", rel="sunset").',
    examples: ['</docs#/pets/getPet>; rel="deprecation"; type="text/html", </docs#/pets/getPet>; rel="sunset"; type="text/html"'],
  },
} as const;
