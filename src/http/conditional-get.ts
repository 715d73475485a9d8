import type { FastifyReply, FastifyRequest } from 'fastify';

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
  reply.header('etag', etag).header('cache-control', 'private, no-cache').header('vary', 'Authorization');
  const header = request.headers['if-none-match'];
  return ifNoneMatchMatches(Array.isArray(header) ? header.join(', ') : header, etag);
}

/**
 * Sends 304 with no body. Sending nothing (not null) keeps Fastify from
 * serialising a payload and from adding Content-Type and Content-Length.
 */
export function sendNotModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}
