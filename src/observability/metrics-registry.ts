import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

/**
 * prom-client's default gauges whose names end in `_total`, which the
 * exposition format reserves for counters (`promtool check metrics` refuses
 * them). Each is the sum of the gauge of the same name without the suffix,
 * by `type` (`nodejs_active_handles{type=…}`), which stays.
 */
const MISNAMED_DEFAULT_METRICS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/**
 * The process's metrics registry, with Node's default process metrics. In a
 * worker of `serve --workers N` it also answers the primary's aggregator,
 * which serves one scrape for every worker (server-cluster.ts).
 */
export function createMetricsRegistry({ clusterWorker }: { clusterWorker: boolean }): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  if (clusterWorker) {
    // Constructing an aggregator is what makes prom-client answer the primary's requests in a worker.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }
  return registry;
}
