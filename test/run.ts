/**
 * The `npm test` launcher. Node's test runner has no global set-up and runs
 * every file in its own process, so this starts ONE PostgreSQL for the whole
 * run (unless TEST_DATABASE_URL names one), runs the test files given as
 * arguments with it (a folder stands for every *.test.ts under it, at any
 * depth, as test/ mirrors src/), always stops it, and exits with the
 * runner's code. It also starts PgBouncer (transaction pooling) in front of
 * that server and passes its URL as TEST_PGBOUNCER_URL, so the PostgreSQL
 * suites run a second time through a pooler; without a pgbouncer binary it
 * says so and skips those runs, except under CI, where it must run.
 *
 *   node --import tsx test/run.ts test
 *   node --import tsx test/run.ts test/orders test/http/errors.test.ts
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from './support/embedded-postgres.js';
import { findPgBouncer, startPgBouncer, type PgBouncer } from './support/pgbouncer.js';

/** The test files under a folder, sorted, at any depth (support code excluded). */
function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'support' || entry.name === 'node_modules' ? [] : testFilesUnder(full);
      return entry.name.endsWith('.test.ts') ? [full] : [];
    });
}

const files = process.argv.slice(2).flatMap((arg) => (statSync(arg).isDirectory() ? testFilesUnder(arg) : [arg]));
if (files.length === 0) {
  process.stderr.write('usage: node --import tsx test/run.ts <test files…>\n');
  process.exit(2);
}

let server: EmbeddedServer | undefined;
const env = { ...process.env };
if (env.TEST_DATABASE_URL === undefined || env.TEST_DATABASE_URL === '') {
  server = await startEmbeddedPostgres();
  env.TEST_DATABASE_URL = server.url;
  process.stderr.write(`test/run.ts: embedded PostgreSQL on 127.0.0.1:${server.port}\n`);
}

let pgbouncer: PgBouncer | undefined;
if (env.TEST_PGBOUNCER_URL === undefined || env.TEST_PGBOUNCER_URL === '') {
  const binary = findPgBouncer();
  const ci = env.CI !== undefined;
  if (binary !== undefined) {
    try {
      pgbouncer = await startPgBouncer(binary, { url: env.TEST_DATABASE_URL });
    } catch (error) {
      await server?.destroy();
      throw error;
    }
    env.TEST_PGBOUNCER_URL = pgbouncer.url;
    process.stderr.write(`test/run.ts: PgBouncer (transaction pooling) on ${new URL(pgbouncer.url).host}\n`);
  } else if (ci) {
    await server?.destroy();
    process.stderr.write('test/run.ts: CI is set but pgbouncer is not installed (apt-get install pgbouncer)\n');
    process.exit(1);
  } else {
    process.stderr.write('test/run.ts: pgbouncer not found in /usr/sbin, /usr/bin or PATH: skipping the runs through PgBouncer (apt-get install pgbouncer)\n');
  }
}

const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { env, stdio: 'inherit' });
const forward = (signal: NodeJS.Signals) => runner.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);

const code = await new Promise<number>((resolve) => {
  runner.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
  runner.on('error', () => resolve(1));
});
await pgbouncer?.stop();
await server?.destroy();
process.exit(code);
