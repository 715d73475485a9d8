/*
 * The raw node:http ceiling the benchmark compares against, in its own
 * process. Mode "bytes": answers every request with the given file's bytes,
 * precomputed. Mode "stringify": holds the orders of an NDJSON file in
 * memory and answers with JSON.stringify of all of them, per request.
 * Reference modes (what sending our headers costs by itself):
 * "bytes-headers" is "bytes" plus the response headers in a JSON file;
 * "fastify-headers" the same from a one-route Fastify app without hooks.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import Fastify from 'fastify';

const [mode, file, headersFile] = process.argv.slice(2);
const MODES = ['bytes', 'stringify', 'bytes-headers', 'fastify-headers'];
if (mode === undefined || !MODES.includes(mode) || file === undefined || (mode.endsWith('-headers') && headersFile === undefined)) {
  process.stderr.write('usage: baseline-server.ts bytes|stringify <file> | bytes-headers|fastify-headers <file> <headers.json>\n');
  process.exit(2);
}

const greet = (port: number) => process.stderr.write(`listening on http://127.0.0.1:${port}\n`);
process.on('SIGTERM', () => process.exit(0));

if (mode === 'fastify-headers' && headersFile !== undefined) {
  const body = readFileSync(file);
  const headers = JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>;
  const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
  app.get('/', (_request, reply) => reply.headers(headers).send(body));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address !== null && typeof address === 'object') greet(address.port);
}

function nodeHandler(): http.RequestListener {
  if (mode === 'stringify') {
    const orders: unknown[] = [];
    for (const line of readFileSync(file ?? '', 'utf8').split('\n')) if (line !== '') orders.push(JSON.parse(line));
    return (_req, res) => {
      const body = JSON.stringify(orders);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
  }
  const body = readFileSync(file ?? '');
  const headers: Record<string, string> =
    mode === 'bytes-headers' && headersFile !== undefined
      ? (JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>)
      : { 'content-type': 'application/json; charset=utf-8' };
  return (_req, res) => {
    res.writeHead(200, { ...headers, 'content-length': body.length });
    res.end(body);
  };
}

if (mode !== 'fastify-headers') {
  const server = http.createServer(nodeHandler());
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object') greet(address.port);
  });
}
