import type { QuickstartConfig } from '../../config/config.js';
import { ERROR_STATUS } from '../../errors/errors.js';
import { MESSAGES_BODY_LIMIT_BYTES } from '../../messages/messages-schemas.js';
import { STABILITY_LEVELS, STABILITY_MEANINGS, type OpenApiOptions } from '../../openapi/openapi-document.js';
import { API_VERSION, LICENSE } from '../store/store-openapi.js';

const QUICKSTART_CODES = [
  'validation_failed',
  'malformed_request',
  'content_type_not_json',
  'missing_api_key',
  'invalid_api_key',
  'expired_api_key',
  'insufficient_scope',
  'route_not_found',
  'message_not_found',
  'method_not_allowed',
  'payload_too_large',
  'idempotency_key_reused',
  'request_timeout',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
  'overloaded',
] as const satisfies readonly (keyof typeof ERROR_STATUS)[];

const DESCRIPTION = `The quickstart example host: queue a message with one request, then follow it.

Every operation requires \`Authorization: Bearer <API key>\`, with the same accounts and keys as the store host.
Every non-2xx response is an \`Error\` record \`{code, message, status}\` whose \`status\` equals the HTTP status.
Besides the responses each operation lists, any path answers 405 \`method_not_allowed\` (with an \`Allow\` header) to a
method it does not define, an unknown path answers 404 \`route_not_found\`, and oversized headers get 431
\`headers_too_large\`. Request bodies are JSON (\`Content-Type: application/json\`), at most ${MESSAGES_BODY_LIMIT_BYTES} bytes.

A 202 means the message is stored durably and queued; a background dispatcher sends it (to the operator's webhook,
if one is configured) and retries with exponential back-off. \`GET /messages/{id}\` tells its current status.

## Stability (\`x-stability\`)

${STABILITY_LEVELS.map((level) => `- \`${level}\`: ${STABILITY_MEANINGS[level]}`).join('\n')}

## Error codes on this host

| code | status |
|---|---|
${QUICKSTART_CODES.map((code) => `| \`${code}\` | ${ERROR_STATUS[code]} |`).join('\n')}
`;

/** The quickstart host's document: its own server (QUICKSTART_PUBLIC_URL) and tag. */
export function quickstartOpenApiOptions(config: Pick<QuickstartConfig, 'publicUrl'>): OpenApiOptions {
  return {
    info: {
      title: 'Store Orders quickstart',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: { name: 'Store Orders maintainers', url: 'https://store.example.com/support' },
      license: LICENSE,
    },
    servers: [{ url: config.publicUrl, description: 'Production: the quickstart example host (QUICKSTART_PUBLIC_URL)', 'x-internal': false }],
    tags: [{ name: 'messages', description: 'Messages queued for delivery.' }],
  };
}
