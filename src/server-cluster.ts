import cluster, { type Worker } from 'node:cluster';
import { Writable } from 'node:stream';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config/config.js';
import { createContainer } from './composition.js';
import { startMetricsListener, type MetricsListener } from './observability/metrics-listener.js';
import { greeting, runServer, type Listening } from './server.js';
import type { ProcessTracing } from './observability/process-tracing.js';

/**
 * `serve --workers N`: with N > 1, a primary process migrates the database
 * and forks N workers that each run the whole server (own connection, own
 * caches, own group commit) on one shared port; node:cluster hands incoming
 * connections to the workers in turn. Every cache is checked against the database
 * in every worker, exactly as across any processes.
 * SIGTERM/SIGINT to the primary drains every worker gracefully.
 */
export async function serve(
  config: Config,
  { workers, tracing }: { workers: number; tracing?: ProcessTracing },
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<void> {
  if (workers <= 1) {
    await runServer(config, stderr, tracing === undefined ? {} : { tracing });
    return;
  }
  if (cluster.isWorker) {
    // If the primary dies, shut down rather than serve unsupervised.
    process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    // The primary forwards SIGINT as SIGTERM; a terminal's Ctrl-C reaching the
    // whole process group must not count as a second, forcing signal.
    process.on('SIGINT', () => undefined);
    let listening: Listening;
    try {
      listening = await runServer(config, new Writable({ write: (_chunk, _encoding, done) => done() }), { signals: ['SIGTERM'], clusterWorker: true, ...(tracing === undefined ? {} : { tracing }) });
    } catch (error) {
      // A worker that cannot start must end (its IPC channel would keep it
      // alive); the primary reports the first failure and stops.
      process.stderr.write(`store-orders: worker could not start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    process.send?.({ kind: 'listening', listening });
    return;
  }
  return runPrimary(config, workers, stderr);
}

async function runPrimary(config: Config, count: number, stderr: NodeJS.WritableStream): Promise<void> {
  // The primary only migrates: its services are never scraped (the workers' are, through the aggregator).
  const container = createContainer(config, { registry: null });
  try {
    await container.storage.migrate();
  } finally {
    await container.close();
  }

  // One scrape of the primary returns every worker's metrics, summed by prom-client's cluster aggregator.
  let metrics: MetricsListener | undefined;
  if (config.metrics !== null) {
    const aggregator = new AggregatorRegistry();
    metrics = await startMetricsListener({ contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() }, config.metrics.host, config.metrics.port);
  }
  const metricsUrl = metrics?.url;

  let stopping = false;
  let failed = false;
  const alive = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    alive.add(worker);
    worker.on('exit', (code, signal) => {
      alive.delete(worker);
      // A worker still starting has no SIGTERM handler yet; ended by ours, it is not a failure.
      if (code !== 0 && !(stopping && signal === 'SIGTERM')) failed = true;
      if (stopping) {
        if (alive.size === 0) process.exit(failed ? 1 : 0);
        return;
      }
      if (!announced) {
        // Failing before every worker listened is a start-up failure (port
        // taken, bad database): re-forking would only fail again.
        stderr.write(`store-orders: a worker exited (${signal ?? code}) before the server was up; stopping\n`);
        failed = true;
        stop();
        return;
      }
      stderr.write(`store-orders: worker ${worker.process.pid ?? '?'} exited (${signal ?? code}); starting another\n`);
      fork();
    });
  };

  // Announced once every worker listens on both hosts, so that "listening"
  // means all of them; the workers share each port, so any one's addresses do.
  const listening = new Set<number>();
  let announced = false;
  cluster.on('message', (worker, message: unknown) => {
    if (!isListeningMessage(message)) return;
    listening.add(worker.id);
    if (announced || listening.size < count) return;
    announced = true;
    stderr.write(greeting({ ...message.listening, ...(metricsUrl === undefined ? {} : { metricsUrl }) }, count));
  });

  const stop = () => {
    if (stopping) return;
    stopping = true;
    void metrics?.close();
    if (alive.size === 0) process.exit(failed ? 1 : 0);
    for (const worker of alive) worker.process.kill('SIGTERM');
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < count; i++) fork();
}

function isListeningMessage(message: unknown): message is { kind: 'listening'; listening: Listening } {
  return typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'listening';
}
