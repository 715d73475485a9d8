import type { Server } from 'node:http';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { INT64_DECIMAL_PATTERN } from '../shared/int64.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';
import { everyResponseHeaders, transportErrorResponses } from '../api/http/response-header-docs.js';

/**
 * What an operation promises about its future, in `x-stability`:
 * - `stable`: no breaking change within the major version; removal only after
 *   deprecation with Deprecation/Sunset headers and a sunset date.
 * - `beta`: complete and supported, but its shape may still change in a
 *   minor release, announced in the changelog.
 * - `experimental`: may change or disappear in any release without notice.
 */
export const STABILITY_LEVELS = ['stable', 'beta', 'experimental'] as const;
export type Stability = (typeof STABILITY_LEVELS)[number];

export const STABILITY_MEANINGS: Readonly<Record<Stability, string>> = {
  stable: 'No breaking change within this major version; removed only after deprecation headers and a published sunset date.',
  beta: 'Complete and supported, but its request or response shape may still change in a minor release, announced in the changelog.',
  experimental: 'May change or disappear in any release, without notice; do not depend on it in production.',
};

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  info: {
    title: string;
    version: string;
    description: string;
    contact?: { name?: string; url?: string; email?: string };
    license?: { name: string; identifier?: string; url?: string };
  };
  /**
   * The first server's path (e.g. `/v1`) is the prefix every documented route
   * lives under. A path-absolute URL (`/v1`) means this host: once it listens
   * on one address, the document names that address (see listeningOrigin).
   */
  servers: { url: string; description: string; 'x-internal'?: boolean }[];
  tags: { name: string; description: string }[];
  /** Where a reader finds more, e.g. the document of another version of the API. */
  externalDocs?: { description: string; url: string };
  webhooks?: Record<string, unknown>; // OpenAPI 3.1: the requests this service sends; titled schemas become components
  /** Defaults to one global HTTP bearer scheme named `bearerAuth`. */
  securitySchemes?: Record<string, Json>;
  security?: Record<string, string[]>[];
  /**
   * The Fastify decorator that returns the document. One host can carry
   * several documents (one per version prefix), each under its own name;
   * @fastify/swagger-ui's own /docs/json reads the default, `swagger`.
   */
  decorator?: string;
}

const DEFAULT_DOCUMENT_DECORATOR = 'swagger';

/** Where a schema says how the OpenAPI document should show it (see documentedAs). */
const DOCUMENTED_AS = Symbol('documentedAs');

/**
 * Marks a request parameter that is validated as text but means another type
 * on the wire (e.g. `limit=50` is an integer, `complete=true` a boolean), so
 * that the document shows `wire`. A symbol key, so validators never see it.
 * The schema's description is kept.
 */
export function documentedAs<T extends object>(schema: T, wire: Json): T {
  return Object.assign(schema, { [DOCUMENTED_AS]: wire });
}

const BEARER: Record<string, Json> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'The API key, sent as `Authorization: Bearer <API key>`.',
  },
};

/**
 * Registers an OpenAPI 3.1 generator on `app` (before its routes, so it sees
 * them). The route schemas stay the single source of truth; transforms make
 * the document exact:
 *  - a path or query parameter validated as a canonical int64 decimal string
 *    (it must never become a JS number) is documented as `integer`/`int64`,
 *    and one marked with documentedAs() as what it says;
 *  - every schema with a `title` becomes a shared component, referenced by
 *    `$ref` (`Order`, `Error`, ...).
 * Routes outside the first server's path (health probes, the docs page, other
 * versions' routes) and routes with `hide: true` are left out; every other
 * route must have a schema with an operationId, tags and `x-stability`, or
 * generating the document throws. Register one generator per version prefix
 * (each with its own `decorator`) and every route under each is checked.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const basePath = new URL(options.servers[0]?.url ?? '/', 'http://localhost/').pathname.replace(/\/+$/, '');
  const securitySchemes = options.securitySchemes ?? BEARER;
  await app.register(fastifySwagger, {
    decorator: options.decorator ?? DEFAULT_DOCUMENT_DECORATOR,
    openapi: {
      openapi: '3.1.0',
      info: options.info,
      servers: options.servers,
      tags: options.tags,
      ...{ externalDocs: options.externalDocs, webhooks: options.webhooks as never }, // @fastify/swagger leaves out undefined ones
      components: { securitySchemes: securitySchemes as never },
      security: options.security ?? Object.keys(securitySchemes).map((name) => ({ [name]: [] })),
    },
    transform: ({ schema, url, route }) => {
      const inside = url === basePath || url.startsWith(`${basePath}/`);
      if (!inside) return { schema: { ...schema, hide: true }, url };
      if (schema === undefined) throw new Error(`Route ${url} must declare a schema (operationId, tags, x-stability, responses) to be documented`);
      if (schema.hide === true) return { schema, url };
      assertDocumented(schema, url);
      const method = Array.isArray(route.method) ? String(route.method[0]) : route.method;
      const bodyLimit = route.bodyLimit ?? app.initialConfig.bodyLimit ?? DEFAULT_BODY_LIMIT;
      return {
        schema: {
          ...schema,
          params: documentParameters(schema.params),
          querystring: documentParameters(schema.querystring),
          ...(schema.body !== undefined && { body: documentParameters(schema.body) }),
          response: documentResponses(schema.response, { method, bodyLimit, rateLimited: route.config?.scope !== undefined }),
        },
        url,
      };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) throw new Error('expected an OpenAPI document');
      const document = hoistSharedHeaders(noteInt64(hoistTitledSchemas(documentObject.openapiObject as Json)) as Json);
      return resolveOnThisHost(document, listeningOrigin(app.server)) as never;
    },
  });
}

/** A document as JSON text, stable across runs: what is committed and served. */
export function openApiJson(app: FastifyInstance, decorator = DEFAULT_DOCUMENT_DECORATOR): string {
  return `${JSON.stringify(app.getDecorator<() => unknown>(decorator)(), null, 2)}\n`;
}

/**
 * Serves a document at `path` (default /openapi.json) without a key and, as
 * one of the docs page's own files, without spending the per-address rate limit.
 */
export function registerOpenApiRoute(app: FastifyInstance, path = '/openapi.json', decorator = DEFAULT_DOCUMENT_DECORATOR): void {
  let cached: string | undefined;
  app.get(path, { schema: { hide: true }, config: { rateLimit: false } }, async (_request, reply) => {
    cached ??= openApiJson(app, decorator);
    return reply.type(JSON_CONTENT_TYPE).send(cached);
  });
}

function assertDocumented(schema: FastifySchema, url: string): void {
  const stability = (schema as Json)['x-stability'];
  if (typeof schema.operationId !== 'string' || schema.tags === undefined || schema.tags.length === 0) {
    throw new Error(`Route ${url} must declare an operationId and tags to be documented`);
  }
  if (typeof stability !== 'string' || !(STABILITY_LEVELS as readonly string[]).includes(stability)) {
    throw new Error(`Route ${url} (${schema.operationId}) must declare x-stability: ${STABILITY_LEVELS.join(', ')}`);
  }
}

/** Parameters and body fields as on the wire: int64 decimal strings as int64 integers, documentedAs() for the rest. */
function documentParameters(parameters: unknown): unknown {
  if (!isObject(parameters) || !isObject(parameters.properties)) return parameters;
  const properties: Json = {};
  for (const [name, property] of Object.entries(parameters.properties)) {
    const described = (wire: Json) => ({ ...wire, ...(isObject(property) && typeof property.description === 'string' ? { description: property.description } : {}) });
    const marked = isObject(property) ? (property as { [DOCUMENTED_AS]?: Json })[DOCUMENTED_AS] : undefined;
    if (marked !== undefined) properties[name] = described(marked);
    else if (isObject(property) && property.type === 'string' && property.pattern === INT64_DECIMAL_PATTERN) {
      properties[name] = described({ type: 'integer', format: 'int64' });
    } else properties[name] = property;
  }
  return { ...parameters, properties };
}

/**
 * Where `server` listens, as an http origin, or undefined when that names no
 * one address: not listening yet, or listening on every interface (0.0.0.0,
 * ::), where a URL relative to wherever the document was read is the one
 * that works for every reader.
 */
function listeningOrigin(server: Server): string | undefined {
  const address = server.address();
  if (address === null || typeof address === 'string' || address.address === '0.0.0.0' || address.address === '::') return undefined;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** The document with its path-absolute server and externalDocs URLs made absolute on `origin`. */
function resolveOnThisHost(document: Json, origin: string | undefined): Json {
  if (origin === undefined) return document;
  const resolve = (url: unknown) => (typeof url === 'string' && url.startsWith('/') ? `${origin}${url}` : url);
  const servers = Array.isArray(document.servers) ? document.servers.map((server: unknown) => (isObject(server) ? { ...server, url: resolve(server.url) } : server)) : document.servers;
  const externalDocs = isObject(document.externalDocs) ? { ...document.externalDocs, url: resolve(document.externalDocs.url) } : document.externalDocs;
  return { ...document, servers, ...(externalDocs === undefined ? {} : { externalDocs }) };
}

/**
 * Said on every int64 field and parameter: generated clients type `integer`
 * as a JS number, and JSON.parse rounds ids above 2^53 to a neighbour's.
 */
export const INT64_NOTE = 'int64: may exceed 2^53 (9007199254740992); parse it exactly (as a bigint or a string), never through a double.';

/**
 * The document with INT64_NOTE on each int64 schema's description, and on
 * each int64 parameter's own description (its schema stays bare: a tool
 * shows the parameter's description).
 */
function noteInt64(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(noteInt64);
  if (!isObject(node)) return node;
  const noted = (description: unknown) => (typeof description === 'string' && description.length > 0 ? `${description} ${INT64_NOTE}` : INT64_NOTE);
  if (typeof node.in === 'string' && isObject(node.schema) && node.schema.format === 'int64') return { ...node, description: noted(node.description) };
  const visited = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, noteInt64(value)]));
  return node.format === 'int64' ? { ...visited, description: noted(node.description) } : visited;
}

/**
 * A response header that every response declaring it declares the same way
 * (X-Request-Id, the rate limits, the security headers) becomes one
 * `components.headers` entry, referenced by `$ref`; one with variants (e.g.
 * Cache-Control, Retry-After) stays with each response.
 */
function hoistSharedHeaders(document: Json): Json {
  const responses = Object.values(isObject(document.paths) ? document.paths : {})
    .flatMap((item) => Object.values(isObject(item) ? item : {}))
    .flatMap((operation) => Object.values(isObject(operation) && isObject(operation.responses) ? operation.responses : {}))
    .filter(isObject);
  const variants = new Map<string, Set<string>>();
  for (const response of responses) {
    for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
      variants.set(name, (variants.get(name) ?? new Set()).add(JSON.stringify(header)));
    }
  }
  const shared: Json = {};
  for (const [name, forms] of [...variants].sort(([a], [b]) => a.localeCompare(b))) {
    if (forms.size === 1) shared[name] = JSON.parse([...forms][0] ?? 'null') as unknown;
  }
  for (const response of responses) {
    if (!isObject(response.headers)) continue;
    response.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, header]) => [name, name in shared ? { $ref: `#/components/headers/${name}` } : header]),
    );
  }
  const components = isObject(document.components) ? document.components : {};
  return Object.keys(shared).length === 0 ? document : { ...document, components: { ...components, headers: shared } };
}

/** Fastify's own default, for a host built without one. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * An operation's responses as the wire has them: its own, plus the 408, 413
 * and 431 any request can get before its route runs, each carrying the
 * headers every answer carries (request id, security headers, and the rate
 * limits of a route behind a key) beside its own.
 */
function documentResponses(responses: unknown, { method, bodyLimit, rateLimited }: { method: string; bodyLimit: number; rateLimited: boolean }): unknown {
  if (!isObject(responses)) return responses;
  const all: Json = { ...transportErrorResponses(method, bodyLimit), ...responses };
  return Object.fromEntries(
    Object.entries(all).map(([status, response]) => {
      if (!isObject(response)) return [status, response];
      const own = isObject(response.headers) ? response.headers : {};
      return [status, { ...response, headers: { ...everyResponseHeaders(Number(status), { rateLimited }), ...own } }];
    }),
  );
}

/** What a response adds to a shared schema; not part of the component itself. */
const PER_USE_KEYWORDS = new Set(['description', 'examples', 'example', 'headers']);

function hoistTitledSchemas(document: Json): Json {
  const components = isObject(document.components) ? document.components : {};
  const schemas: Json = isObject(components.schemas) ? { ...components.schemas } : {};
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const visited: Json = {};
    for (const [key, value] of Object.entries(node)) visited[key] = visit(value);
    if (typeof visited.title !== 'string' || visited.type !== 'object') return visited;
    const component = Object.fromEntries(Object.entries(visited).filter(([key]) => !PER_USE_KEYWORDS.has(key)));
    const name = visited.title;
    const existing = schemas[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(component)) {
      throw new Error(`Two different schemas are titled ${name}; give them distinct titles`);
    }
    schemas[name] = component;
    return { $ref: `#/components/schemas/${name}` };
  };
  const visited = visit(Object.fromEntries(Object.entries(document).filter(([key]) => key !== 'components'))) as Json;
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
  return { ...visited, components: { ...components, schemas: sorted } };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
