import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's metrics registry, with Node's default process metrics. In a
 * worker of `serve --workers N` it also answers the primary's aggregator,
 * which serves one scrape for every worker (server-cluster.ts).
 */
export function createMetricsRegistry({ clusterWorker }: { clusterWorker: boolean }): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (clusterWorker) {
    // Constructing an aggregator is what makes prom-client answer the primary's requests in a worker.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }
  return registry;
}
