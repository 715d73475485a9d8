/*
 * Does refusing an unknown API key take longer when a stored key shares its
 * visible start (prefix + 4 characters)? Lookups are by the SHA-256 of the
 * whole key, so it should not; this measures it on a real SQLite database.
 *
 *   node --import tsx bench/invalid-key-timing.ts [iterations]
 *
 * Prints per-case median, mean and the Welch t statistic of the difference.
 * It is a measurement, not a test: nothing here fails on a threshold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { generateApiKey } from '../src/api-keys/api-key-format.js';
import { createServices } from '../src/composition.js';
import { loadConfig } from '../src/config/config.js';
import { systemClock } from '../src/shared/clock.js';
import { openStorage } from '../src/storage/open-storage.js';
import { Registry } from 'prom-client';
import { createServiceMetrics } from '../src/observability/service-metrics.js';

const PREFIX_AND_BODY = 'so_prod_'.length + 30;
const VISIBLE_START = 'so_prod_'.length + 4;

/** Appends the format's CRC-32 checksum, so the key passes the shape check and reaches storage. */
function sign(prefixAndBody: string): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let value = crc32(prefixAndBody);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62.charAt(value % 62) + out;
    value = Math.floor(value / 62);
  }
  return prefixAndBody + out;
}

const iterations = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-bench-'));
const storage = openStorage({ kind: 'sqlite', path: path.join(dir, 'store.db') });

try {
  await storage.migrate();
  const services = createServices(storage, loadConfig({}), systemClock, createServiceMetrics(new Registry()));
  const account = await services.accounts.createAccount({ name: 'Bench' });
  const stored: string[] = [];
  for (let i = 0; i < 1000; i++) stored.push((await services.apiKeys.createKey({ accountId: account.id })).secret);
  const storedStarts = new Set(stored.map((key) => key.slice(0, VISIBLE_START)));

  const withPrefix = stored.slice(0, 200).map((key) => sign(key.slice(0, VISIBLE_START) + generateApiKey('production').key.slice(VISIBLE_START, PREFIX_AND_BODY)));
  const withoutPrefix: string[] = [];
  while (withoutPrefix.length < 200) {
    const key = generateApiKey('production').key;
    if (!storedStarts.has(key.slice(0, VISIBLE_START))) withoutPrefix.push(key);
  }
  for (const key of [...withPrefix, ...withoutPrefix]) {
    const result = await services.apiKeys.authenticate(key);
    if (result.ok || result.message !== 'The API key is unknown or has been revoked.') throw new Error('bench keys must be well-formed and unknown');
  }

  const samples = { withPrefix: [] as number[], withoutPrefix: [] as number[] };
  for (let i = 0; i < iterations; i++) {
    // Interleaved, so drift (GC, CPU frequency) hits both cases alike.
    for (const [name, pool] of [['withPrefix', withPrefix], ['withoutPrefix', withoutPrefix]] as const) {
      const key = pool[i % pool.length] ?? '';
      const started = process.hrtime.bigint();
      await services.apiKeys.authenticate(key);
      samples[name].push(Number(process.hrtime.bigint() - started));
    }
  }

  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
    return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, mean, variance, n: values.length };
  };
  const a = stats(samples.withPrefix);
  const b = stats(samples.withoutPrefix);
  const t = (a.mean - b.mean) / Math.sqrt(a.variance / a.n + b.variance / b.n);
  const us = (ns: number) => (ns / 1000).toFixed(2);
  console.log(`iterations per case: ${iterations} (1000 stored keys, 200 distinct probe keys per case)`);
  console.log(`unknown key, start shared with a stored key: median ${us(a.median)} µs, mean ${us(a.mean)} µs`);
  console.log(`unknown key, start shared with no key:       median ${us(b.median)} µs, mean ${us(b.mean)} µs`);
  console.log(`difference of means ${us(a.mean - b.mean)} µs, Welch t = ${t.toFixed(2)}`);
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
