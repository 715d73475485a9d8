/**
 * What SQLITE_SYNCHRONOUS=normal buys: cancels per second through the
 * storage layer (one committed UPDATE each, as DELETE /v1/store/orders/{id}
 * does), with synchronous FULL and NORMAL, on a file in the given directory
 * (default: the OS temp directory; use the disk production will use).
 *
 *   node --import tsx bench/sqlite-synchronous.ts [dir] [orders]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServices } from '../src/composition.js';
import { loadConfig, type SqliteSynchronous } from '../src/config/config.js';
import { systemClock } from '../src/shared/clock.js';
import { openStorage } from '../src/storage/open-storage.js';
import { Registry } from 'prom-client';
import { createServiceMetrics } from '../src/observability/service-metrics.js';

const baseDir = process.argv[2] ?? tmpdir();
const count = Number(process.argv[3] ?? '2000');

async function measure(synchronous: SqliteSynchronous): Promise<number> {
  const dir = mkdtempSync(path.join(baseDir, 'store-orders-bench-'));
  const storage = openStorage({ kind: 'sqlite', path: path.join(dir, 'store.db'), synchronous });
  try {
    await storage.migrate();
    const services = createServices(storage, loadConfig({}), systemClock, createServiceMetrics(new Registry()));
    const account = await services.accounts.createAccount({ name: 'bench' });
    for (let id = 1n; id <= BigInt(count); id++) await services.orderOperations.createOrder({ accountId: account.id, id, quantity: 1 });
    const started = process.hrtime.bigint();
    for (let id = 1n; id <= BigInt(count); id++) await services.orders.cancelOrder(account.id, id);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return count / seconds;
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const synchronous of ['full', 'normal', 'full', 'normal'] as const) {
  const rate = await measure(synchronous);
  process.stdout.write(`synchronous=${synchronous.padEnd(6)} ${Math.round(rate)} cancels/s (${count} cancels, ${baseDir})\n`);
}
