import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/errors.js';

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
    if (name !== undefined && name.length === 4 && name.toLowerCase() === 'host') hosts += 1;
  }
  if (hosts > 1) return 'A request must carry exactly one Host header.';
  if (hosts === 0 && req.httpVersion === '1.1') return 'HTTP/1.1 requests must carry a Host header.';
  return undefined;
}

/** The request frames a body (chunked, or a Content-Length above 0), whatever its Content-Type. */
export function carriesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The documented rule for request bodies (docs/errors.md, malformed_request):
 * an operation declares the body it takes (its schema's `body`); a request
 * carrying a body to an operation that takes none is refused with 400
 * `malformed_request` before the body is read, whatever its Content-Type
 * (JSON, text/plain, a form or none). Checked in preParsing, so that
 * authentication (onRequest) still answers first.
 */
export function refuseUndeclaredBody(request: { is404: boolean; raw: IncomingMessage; routeOptions: { schema?: { body?: unknown } } }): void {
  if (request.is404 || request.routeOptions.schema?.body !== undefined || !carriesBody(request.raw)) return;
  throw new AppError('malformed_request', 'This operation takes no request body; send the request without one.');
}
