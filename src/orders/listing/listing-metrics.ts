import { Counter, type Registry } from 'prom-client';

/** How the listings cache answered: `store_listing_cache_lookups_total{result}`. */
export interface ListingCacheMetrics {
  /** A listing served from the cache (true) or built (false). */
  lookup(hit: boolean): void;
}

/**
 * The listings cache's counter, in `registry`. Counted in plain numbers on
 * every listing (the fast lane's budget is a few microseconds), added to the
 * counter at each scrape.
 */
export function createListingCacheMetrics(registry: Registry): ListingCacheMetrics {
  const lookups = { hit: 0, miss: 0 };
  const exported = { hit: 0, miss: 0 };
  new Counter({
    name: 'store_listing_cache_lookups_total',
    help: 'Order listings (v1 and v2 pages) served from the cache (result="hit") or built (result="miss").',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      for (const result of ['hit', 'miss'] as const) {
        this.inc({ result }, lookups[result] - exported[result]);
        exported[result] = lookups[result];
      }
    },
  });
  return {
    lookup(hit) {
      if (hit) lookups.hit++;
      else lookups.miss++;
    },
  };
}

/** Nothing counted (METRICS_PORT=off). */
export const UNCOUNTED_LISTING_CACHE: ListingCacheMetrics = { lookup: () => undefined };
