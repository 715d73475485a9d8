/*
 * node --import tsx bench/request-log-flush.ts [--rounds 10] [--requests 30000]
 *
 * What the request logs cost the serving process per request, without HTTP (BENCHMARKS.md,
 * fourteenth session): the recorder (request-logs/request-log-recorder.ts) captures `--requests`
 * listings as the fast lane does (a fresh request id each, issued as the server issues them, one key, one client), then
 * flushes them to a SQLite database, `--rounds` times after two unmeasured; it prints the CPU per
 * request of the capture and of the flush (median of the rounds, and their range) and the bytes a
 * request takes in the packed rows.
 *
 * CPU time on a shared machine drifts by a third from run to run. Instruction counts drift far
 * less: run it under `valgrind --tool=callgrind node --predictable --import tsx
 * bench/request-log-flush.ts --rounds 1` and `--rounds 5`, and divide the difference of the two
 * totals by 4 × --requests: the instructions per request of capture and flush, within a few
 * percent (the request ids, and so the collector's work, differ from run to run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database } from '../src/storage/sqlite/sqlite-driver.js';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.js';
import { createRequestLogRecorder } from '../src/request-logs/request-log-recorder.js';
import { systemClock } from '../src/shared/clock.js';
import { newRequestUuid } from '../src/request-logs/request-id-words.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const ROUNDS = option('--rounds', 10);
const REQUESTS = option('--requests', 30_000);

const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-request-log-flush-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'bench.db');
const storage = openSqliteStorage(file);
await storage.migrate();
const { id: accountId } = await storage.accounts.create({ name: 'bench', createdAt: new Date().toISOString() });
const recorder = createRequestLogRecorder({ requestLogsRepository: storage.requestLogs, clock: systemClock, enabled: true, maxBuffered: REQUESTS * 2 });

const cpu = (from: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(from);
  return user + system;
};
const captures: number[] = [];
const flushes: number[] = [];
// One object filled again for each request, as the fast lane's (http/fast-lane.ts).
const request = { at: 0, method: 'GET', url: '/v1/store/orders', status: 200, durationMs: 0, requestId: '', accountId, keyId: 1, clientAddress: '127.0.0.1', userAgent: 'wrk/4.2.0', errorBody: undefined };
for (let round = 0; round < ROUNDS + 2; round++) {
  const capturing = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const durationMs = 0.2 + (i % 7) / 100;
    request.at = Date.now() - durationMs;
    request.durationMs = durationMs;
    request.requestId = newRequestUuid();
    recorder.capture(request);
  }
  const captured = cpu(capturing);
  const flushing = process.cpuUsage();
  await recorder.flush();
  const flushed = cpu(flushing);
  if (round >= 2) {
    captures.push(captured / REQUESTS);
    flushes.push(flushed / REQUESTS);
  }
}
const summary = (values: number[]): string => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(2)} µs (rounds ${(sorted[0] as number).toFixed(2)}–${(sorted.at(-1) as number).toFixed(2)})`;
};
const db = new Database(file, { readonly: true });
const { bytes, entries } = db.prepare('SELECT sum(length(entries) + length(request_ids) + length(statuses) + length(methods) + length(key_ids) + length(paths) + coalesce(length(request_uuids), 0)) AS bytes, sum(live) AS entries FROM request_log_batches').get() as { bytes: number; entries: number };
db.close();
console.log(`node ${process.version}, ${REQUESTS} requests × ${ROUNDS} rounds`);
console.log(`capture: ${summary(captures)} CPU per request`);
console.log(`flush:   ${summary(flushes)} CPU per request`);
console.log(`stored:  ${(bytes / entries).toFixed(1)} bytes per request in the packed rows`);
