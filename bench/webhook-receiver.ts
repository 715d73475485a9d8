/*
 * A webhook receiver for npm run bench, in its own process (the bench blocks
 * its own event loop while wrk runs): answers 204 to every POST and counts
 * them per path, with the times of the first and the last, and each
 * delivery's latency: from its event's createdAt (taken just before the
 * change's commit, in whichever process made it) to its arrival here, in
 * ms. A path under /slow/ is answered after 10 s. GET /count?path=/x reports
 * them as JSON; a path ending in * counts every path with that prefix.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const SLOW_MS = 10_000;

interface Seen {
  n: number;
  first: number;
  last: number;
  latencies: number[];
}

const counts = new Map<string, Seen>();

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
}

function report(path: string) {
  const matching = path.endsWith('*') ? [...counts].filter(([key]) => key.startsWith(path.slice(0, -1))).map(([, seen]) => seen) : [counts.get(path)].filter((s) => s !== undefined);
  if (matching.length === 0) return { n: 0, first: 0, last: 0, p50: null, p99: null };
  const latencies = matching.flatMap((seen) => seen.latencies).sort((a, b) => a - b);
  return {
    n: matching.reduce((sum, seen) => sum + seen.n, 0),
    first: Math.min(...matching.map((seen) => seen.first)),
    last: Math.max(...matching.map((seen) => seen.last)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (req.method === 'GET' && url.pathname === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report(url.searchParams.get('path') ?? '')));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const arrived = Date.now();
    const now = performance.now();
    const seen = counts.get(url.pathname) ?? { n: 0, first: now, last: now, latencies: [] };
    seen.n++;
    seen.last = now;
    try {
      const createdAt = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string }).createdAt);
      if (Number.isFinite(createdAt)) seen.latencies.push(arrived - createdAt);
    } catch {
      // Not an event: counted, no latency.
    }
    counts.set(url.pathname, seen);
    if (url.pathname.startsWith('/slow/')) setTimeout(() => res.writeHead(204).end(), SLOW_MS);
    else res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
