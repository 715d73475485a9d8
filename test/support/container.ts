import { Registry } from 'prom-client';
import { createServices } from '../../src/composition.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import type { Services } from '../../src/services.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import type { Storage } from '../../src/storage/storage.js';

/** Where relative paths in a test's configuration would resolve (no test uses one). */
const TEST_CWD = '/srv/store-orders-test';

/**
 * The configuration a test runs with: the real loader over `env` (variables
 * as the process would read them), so that tests and production parse the
 * same way and get the same defaults, but one: shedding on event-loop delay
 * is off unless `env` sets LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS. An in-process
 * test server shares its event loop with the other test files of its
 * process, so the delay it would measure is theirs (a sibling's synchronous
 * SQLite migration or key derivation), not its own. The likely cause of a
 * portal page answering 503 in a CI run (stop 35): nothing else there answers
 * 503 in one process over SQLite. Its tests set their own bound (resource-bounds), and
 * servers started as processes (startServer) keep the default.
 */
export function testConfig(env: Readonly<Record<string, string>> = {}): Config {
  return loadConfig({ LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0', ...env }, TEST_CWD);
}

/** Every service over `storage`, wired by the real composition root. */
export function testServices(storage: Storage, { config = testConfig(), clock = systemClock }: { config?: Config; clock?: Clock } = {}): Services {
  return createServices(storage, config, clock, createServiceMetrics(new Registry()));
}
