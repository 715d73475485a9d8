import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorRecord, type ErrorRecord } from '../errors/errors.js';
import { JSON_CONTENT_TYPE } from './media-types.js';
import { afterEarlierResponses } from './protection/pipelining.js';

/** What every raw Error record carries besides its body (the hooks that add them to Fastify replies never see these). */
const RAW_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' } as const;

/**
 * A complete HTTP/1.1 response carrying an Error record (and a fresh request
 * id), for the few cases answered before Fastify sees a request (parse
 * errors, CONNECT, a refused connection), closing the connection.
 */
export function rawErrorResponse(record: ErrorRecord, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(record);
  const head = {
    'Content-Type': JSON_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': randomUUID(),
    ...RAW_HEADERS,
    Connection: 'close',
    ...headers,
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${record.status} ${STATUS_CODES[record.status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
}

/**
 * The handler of requests that Node's HTTP parser rejects before Fastify sees them
 * (malformed request line, oversized headers) with an Error record too, after
 * the answers to the requests pipelined before it on the connection (RFC 9112
 * §9.3.2), then closes the connection; `answered` counts each answer.
 */
export function clientErrorWriter(answered: (status: number) => void): (error: Error & { code?: string }, socket: Duplex) => void {
  return (error, socket) => {
    afterEarlierResponses(socket, () => {
      const status = writeClientErrorNow(error, socket);
      if (status !== undefined) answered(status);
    });
  };
}

/** Writes the Error record and returns its status, or destroys the socket and returns undefined. */
function writeClientErrorNow(error: Error & { code?: string }, socket: Duplex): number | undefined {
  // As Node's own handler does: once a response has started on this socket
  // (e.g. the 417 for a bad Expect), a second one would corrupt the stream.
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || started) {
    socket.destroy();
    return undefined;
  }
  const record =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errorRecord('headers_too_large', 'The request headers are too large.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errorRecord('request_timeout', 'The request was not received in time (headers or body too slow).')
        : errorRecord('malformed_request', 'The request could not be parsed as HTTP.');
  socket.end(rawErrorResponse(record));
  return record.status;
}

/**
 * Requests Node answers itself unless told otherwise: an unsupported
 * `Expect` (417) and `CONNECT` (400: no proxying here). Both get Error records.
 */
export function installRawServerGuards(server: Server, answered: (status: number) => void): void {
  server.on('checkExpectation', (_request, response) => {
    const body = JSON.stringify(errorRecord('expectation_failed', 'Only "Expect: 100-continue" is supported.'));
    response.writeHead(417, {
      'content-type': JSON_CONTENT_TYPE,
      'content-length': Buffer.byteLength(body),
      'x-request-id': randomUUID(),
      ...RAW_HEADERS,
    });
    response.end(body);
    answered(417);
  });
  server.on('connect', (_request, socket: Duplex) => {
    socket.end(rawErrorResponse(errorRecord('malformed_request', 'CONNECT is not supported: this server is not a proxy.')));
    answered(400);
  });
}
