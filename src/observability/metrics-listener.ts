import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a scrape returns: the exposition text and its content type (one registry, or every worker's aggregated). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** A started metrics listener: its URL and how to close it. */
export interface MetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text exposition) on its own listener,
 * apart from the public hosts: none of their hooks, limits or keys apply,
 * and METRICS_HOST keeps it on a private interface. Anything else is 404.
 */
export async function startMetricsListener(source: MetricsSource, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    source.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        // A worker that did not answer the aggregator, for instance: the scrape fails visibly rather than lying.
        res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics unavailable: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  server.listen(port, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(portError(error as NodeJS.ErrnoException, host, port)))]);
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A taken port named by its variable, as the hosts' are (server-listen.ts). */
function portError(cause: NodeJS.ErrnoException, host: string, port: number): Error {
  if (cause.code !== 'EADDRINUSE' && cause.code !== 'EACCES') return cause;
  const why = cause.code === 'EADDRINUSE' ? 'is already in use' : 'may not be listened on by this user';
  return new Error(`METRICS_PORT=${port}: ${host}:${port} ${why}; choose another METRICS_PORT (each process needs its own, or METRICS_PORT=off)`, { cause });
}
