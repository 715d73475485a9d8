import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/errors.js';

/**
 * What is wrong with a request's Host header, or undefined. RFC 9112 §3.2:
 * an HTTP/1.1 request carries exactly one Host; a request with none (in
 * HTTP/1.1) or with several (any version) gets 400. Counted on rawHeaders
 * because Node keeps only the first Host in `headers`.
 */
export function hostProblem(req: IncomingMessage): string | undefined {
  const raw = req.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    // The usual spellings first: lower-casing makes a string per request.
    if (name === 'Host' || name === 'host' || (name !== undefined && name.length === 4 && name.toLowerCase() === 'host')) hosts += 1;
  }
  if (hosts > 1) return 'A request must carry exactly one Host header.';
  if (hosts === 0 && req.httpVersion === '1.1') return 'HTTP/1.1 requests must carry a Host header.';
  return undefined;
}

/** The request frames a body (chunked, or a Content-Length above 0), whatever its Content-Type. */
function carriesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The documented rule for request bodies (docs/errors.md, "Request bodies"):
 * an operation declares the body it takes (its schema's `body`); a request
 * carrying a body to an operation that takes none gets 400
 * `malformed_request`, whatever its Content-Type (JSON, text/plain, a form
 * or none). Installed on a host's root: a scope whose operation takes a body
 * (POST /messages) installs its own parsers.
 *
 * The body is still read through the host's bounds first, so that an
 * oversized one gets its 413 and a dribbled one its 408, as on every route;
 * what it holds is never parsed (one parser for every media type, which
 * drops it), and authentication (onRequest) answers before any of this.
 */
export function installBodyRule(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => {
    done(null, undefined);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.is404 || request.routeOptions.schema?.body !== undefined || !carriesBody(request.raw)) {
      done();
      return;
    }
    done(new AppError('malformed_request', 'This operation takes no request body; send the request without one.'));
  });
}
