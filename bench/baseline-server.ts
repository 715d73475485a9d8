/*
 * The raw node:http ceiling the benchmark compares against, in its own
 * process. Mode "bytes": answers every request with the given file's bytes,
 * precomputed. Mode "stringify": holds the orders of an NDJSON file in
 * memory and answers with JSON.stringify of all of them, per request.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [mode, file] = process.argv.slice(2);
if ((mode !== 'bytes' && mode !== 'stringify') || file === undefined) {
  process.stderr.write('usage: baseline-server.ts bytes|stringify <file>\n');
  process.exit(2);
}

let handler: http.RequestListener;
if (mode === 'bytes') {
  const body = readFileSync(file);
  handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  };
} else {
  const orders: unknown[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) if (line !== '') orders.push(JSON.parse(line));
  handler = (_req, res) => {
    const body = JSON.stringify(orders);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}
const server = http.createServer(handler);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') process.stderr.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
