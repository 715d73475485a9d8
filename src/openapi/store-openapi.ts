import type { Config } from '../config/config.js';
import { ERROR_STATUS } from '../errors/errors.js';
import { STABILITY_LEVELS, STABILITY_MEANINGS, type OpenApiOptions } from './openapi-document.js';

/** The published contract version (spec section 9). */
export const API_VERSION = '1.0.0';

const DESCRIPTION = `Orders of a pet store: list every order, cancel a pending one.

Every operation requires \`Authorization: Bearer <API key>\`. Every non-2xx response is an \`Error\` record
\`{code, message, status}\` whose \`status\` equals the HTTP status. Besides the responses each operation lists,
any path answers 405 \`method_not_allowed\` (with an \`Allow\` header) to a method it does not define, and an
unknown path answers 404 \`route_not_found\`; a request body over 1 MiB gets 413 \`payload_too_large\`,
oversized headers 431 \`headers_too_large\`, an \`Expect\` other than \`100-continue\` 417
\`expectation_failed\`, and bytes that are not HTTP (or \`CONNECT\`) 400 \`malformed_request\`.

Identifiers are int64 and written as plain JSON numbers with every digit: parse them with a JSON parser that
keeps integers above 2^53 exact (the typed client \`store-orders/client\` does).

## Stability (\`x-stability\`)

Every operation carries \`x-stability\`:

${STABILITY_LEVELS.map((level) => `- \`${level}\`: ${STABILITY_MEANINGS[level]}`).join('\n')}

Deprecated operations are marked \`deprecated: true\` and answer with \`Deprecation\` (RFC 9745), \`Sunset\`
(RFC 8594) and \`Link\` headers; after the sunset date they answer 410 \`endpoint_sunset\`.

## Error codes

The closed set of \`code\` values and the HTTP status each comes with:

| code | status |
|---|---|
${Object.entries(ERROR_STATUS).map(([code, status]) => `| \`${code}\` | ${status} |`).join('\n')}
`;

/** The store host's document: info, both environments' servers and its tags. */
export function storeOpenApiOptions(config: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>): OpenApiOptions {
  return {
    info: {
      title: 'Store Orders',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'Store Orders maintainers', url: 'https://store.example.com/support' },
      license: { name: 'Proprietary', url: 'https://store.example.com/terms' },
    },
    servers: [
      { url: config.publicBaseUrl, description: 'Production (PUBLIC_BASE_URL)', 'x-internal': false },
      { url: config.stagingBaseUrl, description: 'Staging: same paths, separate data and keys (STAGING_BASE_URL)', 'x-internal': false },
    ],
    tags: [
      { name: 'orders', description: 'The store\'s orders.' },
      { name: 'pets', description: 'The store\'s pets (deprecated lookup).' },
    ],
  };
}
