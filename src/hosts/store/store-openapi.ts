import type { Config } from '../../config/config.js';
import { ERROR_STATUS } from '../../errors/errors.js';
import { STABILITY_LEVELS, STABILITY_MEANINGS, type OpenApiOptions } from '../../openapi/openapi-document.js';
import { eventWebhooks } from '../../events/events-openapi.js';
import { EVENT_TYPE_LIST } from '../../events/events-schemas.js';

/** The repository's licence (LICENSE), stated in every document. */
export const LICENSE = { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' } as const;

/** The published contract version (spec section 9). */
export const API_VERSION = '1.0.0';

/** The v2 document's version: a pre-release of 2.0.0 while its operations are beta. */
const API_V2_VERSION = '2.0.0-beta.1';

/** The v2 document: its own generator (decorator) on the store host, and where the host serves it. */
export const V2_DOCUMENT = { decorator: 'swaggerV2', path: '/v2/openapi.json' } as const;

/**
 * Spec section 1: the base address carries the version prefix and paths are
 * relative to it. Each version therefore has its own document whose servers
 * end in its prefix; the v2 servers are the configured (v1) ones with `/v2`.
 */
function v2BaseUrl(v1BaseUrl: string): string {
  return `${apiRoot(v1BaseUrl)}/v2`;
}

/** Where the documents are served, given the configured (v1) base URL. */
function documentUrls(v1BaseUrl: string): { v1: string; v2: string } {
  return { v1: `${apiRoot(v1BaseUrl)}/openapi.json`, v2: `${apiRoot(v1BaseUrl)}${V2_DOCUMENT.path}` };
}

/** The configured base URL without its /v1 prefix: where this server's root is published. */
function apiRoot(v1BaseUrl: string): string {
  if (!v1BaseUrl.endsWith('/v1')) throw new Error(`A base URL must end in the version prefix /v1 (got ${v1BaseUrl})`);
  return v1BaseUrl.slice(0, -'/v1'.length);
}

/** The closed set of error codes (shared by every version), as a Markdown table body. */
const ERROR_CODE_TABLE = Object.entries(ERROR_STATUS)
  .map(([code, status]) => `| \`${code}\` | ${status} |`)
  .join('\n');

const DESCRIPTION = `Orders of a pet store: list every order, cancel a pending one.

Every operation requires \`Authorization: Bearer <API key>\`. Every non-2xx response is an \`Error\` record
\`{code, message, status}\` whose \`status\` equals the HTTP status. Besides the responses each operation lists,
any path answers 405 \`method_not_allowed\` (with an \`Allow\` header) to a method it does not define, and an
unknown path answers 404 \`route_not_found\`; a request body over 1 MiB gets 413 \`payload_too_large\`,
oversized headers 431 \`headers_too_large\`, an \`Expect\` other than \`100-continue\` 417
\`expectation_failed\`, and bytes that are not HTTP (or \`CONNECT\`) 400 \`malformed_request\`.

Identifiers are int64 and written as plain JSON numbers with every digit: parse them with a JSON parser that
keeps integers above 2^53 exact (the typed client \`@store-orders/client\` does).

## Version 2 (beta)

The orders API version 2 (filtering, cursor pagination, order status; \`x-stability: beta\`) runs beside this one
under the prefix \`/v2\` and has its own document, served at \`/v2/openapi.json\` (see \`externalDocs\`). This
document describes version 1 only: its servers carry the \`/v1\` prefix and its paths are relative to them.

## Stability (\`x-stability\`)

Every operation carries \`x-stability\`:

${STABILITY_LEVELS.map((level) => `- \`${level}\`: ${STABILITY_MEANINGS[level]}`).join('\n')}

Deprecated operations are marked \`deprecated: true\` and answer with \`Deprecation\` (RFC 9745), \`Sunset\`
(RFC 8594) and \`Link\` headers; after the sunset date they answer 410 \`endpoint_sunset\`.

## Error codes

The closed set of \`code\` values and the HTTP status each comes with:

| code | status |
|---|---|
${ERROR_CODE_TABLE}
`;

type ServerUrls = Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>;

/**
 * The v1 servers: PUBLIC_BASE_URL and STAGING_BASE_URL where configured.
 * Without PUBLIC_BASE_URL the first server is this one, as the relative
 * `/v1`: the generator resolves it against the address the host listens on
 * (openapi-document.ts), so that the docs page's "Try it out" reaches it.
 */
function v1Servers({ publicBaseUrl, stagingBaseUrl }: ServerUrls): OpenApiOptions['servers'] {
  return [
    publicBaseUrl === undefined
      ? { url: V1_PATH, description: 'This server, where it listens (PUBLIC_BASE_URL is not set)', 'x-internal': false }
      : { url: publicBaseUrl, description: 'Production (PUBLIC_BASE_URL)', 'x-internal': false },
    ...(stagingBaseUrl === undefined
      ? []
      : [{ url: stagingBaseUrl, description: 'Staging: same paths, separate data and keys (STAGING_BASE_URL)', 'x-internal': false }]),
  ];
}

const V1_PATH = '/v1';

const CONTACT = { name: 'Store Orders maintainers', url: 'https://store.example.com/support' };

/** The store host's v1 document: info, its servers and its tags. */
export function storeOpenApiOptions(config: ServerUrls): OpenApiOptions {
  return {
    externalDocs: { description: 'Orders API v2 (beta): its own OpenAPI document', url: documentUrls(config.publicBaseUrl ?? V1_PATH).v2 },
    info: {
      title: 'Store Orders',
      version: API_VERSION,
      description: DESCRIPTION,
      contact: CONTACT,
      license: LICENSE,
    },
    servers: v1Servers(config),
    tags: [
      { name: 'orders', description: 'The store\'s orders.' },
      { name: 'pets', description: 'The store\'s pets (deprecated lookup).' },
    ],
  };
}

const V2_DESCRIPTION = `Orders of a pet store, version 2 (beta): list orders filtered and one page at a time, get one order,
cancel a pending one. Orders carry their \`status\` (\`pending\`, \`shipped\`, \`cancelled\`); cancelled orders are
listed and can be fetched.

Every operation here is \`x-stability: beta\`: ${STABILITY_MEANINGS.beta} Version 1 is unchanged and has its own
document, served at \`/openapi.json\` (see \`externalDocs\`).

## Why a separate document

The service's base address carries the version prefix and paths are relative to it (spec section 1: base address
\`{base_url}\` ending in \`/v1\`). This document follows the same shape for version 2: its servers are the same
hosts ending in \`/v2\`, and its paths (\`/store/orders\`, \`/store/orders/{orderId}\`) are relative to them. One
document cannot hold both versions without changing the version 1 shape, since both versions use the same
relative paths.

## Conventions

Every operation requires \`Authorization: Bearer <API key>\` (the same keys as version 1; listing and getting need the
scope \`orders:read\`, cancelling \`orders:write\`). Every non-2xx response is an \`Error\` record \`{code, message, status}\`
whose \`status\` equals the HTTP status. Besides the responses each operation lists, any path answers 405
\`method_not_allowed\` (with an \`Allow\` header) to a method it does not define, and an unknown path answers 404
\`route_not_found\`; a request body over 1 MiB gets 413 \`payload_too_large\`, oversized headers 431
\`headers_too_large\`, an \`Expect\` other than \`100-continue\` 417 \`expectation_failed\`, and bytes that are not
HTTP (or \`CONNECT\`) 400 \`malformed_request\`.

Identifiers are int64 and written as plain JSON numbers with every digit: parse them with a JSON parser that
keeps integers above 2^53 exact (the typed client \`@store-orders/client\` does). In query strings and paths they are
decimal text, parsed exactly.

## Pages and conditional requests

\`GET /store/orders\` answers \`{data, nextCursor}\`, ordered by id. When \`nextCursor\` is not null, pass it as
\`cursor\` with the same filters for the next page; the response then also carries a \`Link\` header with
\`rel="next"\` (a path-absolute URL on this host). Cursors are opaque and signed: an altered cursor, one of another
account or one sent with other filters is 400 \`invalid_cursor\`. Walking all pages yields every order that existed
and matched throughout the walk exactly once.

The listing carries a strong \`ETag\`; sending it back in \`If-None-Match\` answers 304 with no body while none of
the account's orders has changed.

## Audit trail

\`GET /audit-events\` (scope \`audit:read\`) lists the account's audit trail, newest first, in the same
\`{data, nextCursor}\` pages: who (a portal user, an API key by its id, the operator or the system) did what, when and from
which address. Action names follow the OWASP Logging Vocabulary where it has one.

## Events (beta)

\`GET /events\` (scope \`events:read\`) is the account's feed of events, oldest first in the order they were committed;
\`GET /events/{eventId}\` returns one. An event is written in the same transaction as the change it reports, so no
change is committed without its event. Every page, the last included, carries a \`nextCursor\`: a client that walks to
the end and resumes from its last cursor, however often, sees every event exactly once. Events are kept for 30 days by
default. The event types (each described under \`webhooks\`, the requests sent to subscribed endpoints):

${EVENT_TYPE_LIST}

## Error codes

The closed set of \`code\` values (shared with version 1) and the HTTP status each comes with:

| code | status |
|---|---|
${ERROR_CODE_TABLE}
`;

/** The store host's v2 (beta) document: the same hosts under /v2, the v2 orders operations. */
export function storeV2OpenApiOptions(config: ServerUrls): OpenApiOptions {
  return {
    decorator: V2_DOCUMENT.decorator,
    externalDocs: { description: 'Orders API v1 (stable): its own OpenAPI document', url: documentUrls(config.publicBaseUrl ?? V1_PATH).v1 },
    info: {
      title: 'Store Orders v2 (beta)',
      version: API_V2_VERSION,
      description: V2_DESCRIPTION,
      contact: CONTACT,
      license: LICENSE,
    },
    // The v1 servers with /v2 for /v1, each saying so.
    servers: v1Servers(config).map((server) => ({
      ...server,
      url: v2BaseUrl(server.url),
      description: server.url === V1_PATH ? server.description : server.description.replace(/\)$/, ', with /v2 for /v1)'),
    })),
    tags: [
      { name: 'orders', description: 'The store\'s orders, with their status (beta).' },
      { name: 'audit', description: 'The account\'s audit trail: who did what, when and from where (beta).' },
      { name: 'events', description: 'What changed, in commit order: the event feed and the webhook event types (beta).' },
      { name: 'webhooks', description: 'Webhook endpoints: signed events POSTed to your URL, with their delivery log (beta).' },
      { name: 'request-logs', description: 'What your integration sent and got back: every request your keys made, kept 14 days (beta).' },
    ],
    webhooks: eventWebhooks(),
  };
}
