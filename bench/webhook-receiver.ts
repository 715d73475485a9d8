/*
 * A webhook receiver for npm run bench, in its own process (the bench blocks
 * its own event loop while wrk runs): answers 204 to every POST and counts
 * them per path, with the times of the first and the last; GET /count?path=/x
 * reports them as JSON.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const counts = new Map<string, { n: number; first: number; last: number }>();
const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (req.method === 'GET' && url.pathname === '/count') {
    const seen = counts.get(url.searchParams.get('path') ?? '') ?? { n: 0, first: 0, last: 0 };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    return;
  }
  req.resume().on('end', () => {
    const now = performance.now();
    const seen = counts.get(url.pathname) ?? { n: 0, first: now, last: now };
    counts.set(url.pathname, { n: seen.n + 1, first: seen.first, last: now });
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
