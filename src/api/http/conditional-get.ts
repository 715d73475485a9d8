import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { HeaderDoc } from './error-responses.js';

/** What a listing that supports conditional GET answers with, on 200 and on 304 (see notModified). */
export const VALIDATOR_HEADER_DOCS: Readonly<Record<string, HeaderDoc>> = {
  ETag: {
    type: 'string',
    pattern: '^"[A-Za-z0-9_-]+"$',
    maxLength: 64,
    description: 'Strong entity tag of this listing, always sent; send it back in If-None-Match to get 304 while the listing is unchanged.',
    examples: ['"Xq7oC3dJ2vT5b0nLk9pW1sRaYe4"'],
  },
  'Cache-Control': {
    type: 'string',
    maxLength: 40,
    description: 'private, no-cache: only the client may store the listing, and it revalidates (If-None-Match) before reusing it.',
    examples: ['private, no-cache'],
  },
  Vary: { type: 'string', maxLength: 40, description: 'Authorization: the listing depends on the API key.', examples: ['Authorization'] },
};

/** The request header of a conditional GET. */
export const IfNoneMatchHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'ETags of listings the client holds; a match (or *) answers 304 with no body.' }),
  ),
});

/** The 304 answer: no body, the same validator headers as the 200. */
export const NotModifiedResponseSchema = Type.Null({
  description: 'The listing has not changed since the ETag the client sent; no body.',
  headers: VALIDATOR_HEADER_DOCS,
});

/**
 * A strong entity tag from a validator: a digest of what determines the
 * representation (never of the representation itself, so that a 304 costs no
 * query of the listed rows and no serialisation).
 */
export function strongEtag(validator: string): string {
  return `"${validator}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses weak comparison (W/"x" matches "x"),
 * and "*" matches any current representation.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  // What a client sends back is usually the very ETag it got: a match with no parse (about 0.4 µs of a cached 304).
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (match[1] === opaque) return true;
  }
  return false;
}

/**
 * Sets the validator headers of a listing and tells whether the client's
 * copy is current. Listings are per account: only the client may store
 * them, and it must revalidate each time.
 */
export function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  const [etagName, , cacheName, cacheControl, varyName, vary] = validatorHeaders(etag);
  reply.header(etagName, etag).header(cacheName, cacheControl).header(varyName, vary);
  return clientHasCurrent(request.headers['if-none-match'], etag);
}

/**
 * The validator headers of a listing, as name/value pairs in one flat list
 * (the form node:http's writeHead takes): ETag, and that only the client may
 * store the listing, revalidating each time, per key.
 */
export function validatorHeaders(etag: string): [string, string, string, string, string, string] {
  return ['etag', etag, 'cache-control', 'private, no-cache', 'vary', 'Authorization'];
}

/** Whether the If-None-Match header(s) of a request name `etag`. */
export function clientHasCurrent(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  return ifNoneMatchMatches(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, etag);
}

/**
 * Sends 304 with no body. Sending nothing (not null) keeps Fastify from
 * serialising a payload and from adding Content-Type and Content-Length.
 */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}
