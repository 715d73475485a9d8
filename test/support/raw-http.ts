import { connect, type AddressInfo, type Socket } from 'node:net';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';

export interface RawResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes after the first response (a second response would be a framing bug). */
  trailing: string;
  raw: string;
}

/** Listens on an ephemeral local port and returns it. */
export async function listenLocal(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** Opens a socket, closed when the test ends. */
export function openSocket(t: TestContext, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    t.after(() => socket.destroy());
  });
}

/** Parses one HTTP/1.1 response (Content-Length framed, as ours are). */
export function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const rest = split === -1 ? '' : raw.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] === undefined ? rest.length : Number(headers['content-length']);
  const bytes = Buffer.from(rest, 'utf8');
  const body = bytes.subarray(0, length).toString('utf8');
  const trailing = bytes.subarray(length).toString('utf8');
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body, trailing, raw };
}

/**
 * Writes `request` bytes as given (nothing is validated or normalised) and
 * reads until the server closes the connection.
 */
export function sendRaw(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks).toString('utf8'))));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer was written still leaves the answer to read.
      if (error.code === 'ECONNRESET' && chunks.length > 0) return;
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      else reject(error);
    });
  });
}
