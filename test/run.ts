/**
 * The `npm test` launcher. Node's test runner has no global set-up and runs
 * every file in its own process, so this starts ONE PostgreSQL for the whole
 * run (unless TEST_DATABASE_URL names one), migrates one template database
 * on it and one SQLite template file that every test's fresh database is
 * copied from (test/support/templates.ts), runs the test files given as
 * arguments with it (a folder stands for every *.test.ts under it, at any
 * depth, as test/ mirrors src/; the second tier, test/long/, only when named
 * itself), TEST_CONCURRENCY files at a time, always stops it, prints the ten
 * slowest files, and exits with the runner's code. It also starts PgBouncer
 * (transaction pooling) in front of that server and passes its URL as
 * TEST_PGBOUNCER_URL, so the storage contract suite runs through a pooler
 * too; without a pgbouncer binary it says so and skips those runs, except
 * under CI, where it must run.
 *
 *   node --import tsx test/run.ts test                  # npm test
 *   node --import tsx test/run.ts test/long             # npm run test:long
 *   node --import tsx test/run.ts test/orders test/http/errors.test.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from './support/embedded-postgres.js';
import { findPgBouncer, startPgBouncer, type PgBouncer } from './support/pgbouncer.js';
import { createPostgresTemplate, createSqliteTemplate, type Template } from './support/templates.js';

/**
 * Files run at once. The suite waits on databases, sockets, child processes
 * and browsers far more than it computes, so twice the cores keeps both
 * cores busy (measured on 2 cores: docs/development.md, "The test suite").
 */
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() * 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write(`test/run.ts: TEST_CONCURRENCY must be a whole number of files, at least 1; got ${String(process.env.TEST_CONCURRENCY)}\n`);
  process.exit(2);
}

/** The test files under a folder, sorted, at any depth (support code excluded). */
function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      // test/long/ is the second tier: run when it is named, never as part of test/.
      if (entry.isDirectory()) return ['support', 'node_modules', 'long'].includes(entry.name) ? [] : testFilesUnder(full);
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

const templates: Template[] = [];
const stopAll = async () => {
  for (const template of templates) await template.remove().catch(() => undefined);
  await pgbouncer?.stop();
  await server?.destroy();
};
try {
  const postgresTemplate = await createPostgresTemplate(env.TEST_DATABASE_URL);
  templates.push(postgresTemplate);
  env.TEST_POSTGRES_TEMPLATE = postgresTemplate.name;
  const sqliteTemplate = await createSqliteTemplate();
  templates.push(sqliteTemplate);
  env.TEST_SQLITE_TEMPLATE = sqliteTemplate.name;
} catch (error) {
  await stopAll();
  throw error;
}

// TEST_TIMES_FILE keeps every file's time (JSON lines) for a closer look; otherwise a temporary file.
const timesDir = mkdtempSync(path.join(tmpdir(), 'store-orders-test-times-'));
const timesFile = process.env.TEST_TIMES_FILE ?? path.join(timesDir, 'files.jsonl');
const runner = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(import.meta.dirname, 'support', 'file-times-reporter.mjs')}`,
    `--test-reporter-destination=${timesFile}`,
    ...files,
  ],
  { env, stdio: 'inherit' },
);
const forward = (signal: NodeJS.Signals) => runner.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);

const code = await new Promise<number>((resolve) => {
  runner.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
  runner.on('error', () => resolve(1));
});
await stopAll();
printSlowest(10);
process.exit(code);

/** The `count` slowest files of this run, from the file-times reporter. */
function printSlowest(count: number): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(timesFile, 'utf8').split('\n').filter((line) => line !== '');
  } catch {
    return;
  } finally {
    rmSync(timesDir, { recursive: true, force: true });
  }
  const times = lines.map((line) => JSON.parse(line) as { file: string; ms: number }).sort((a, b) => b.ms - a.ms);
  const cwd = process.cwd();
  process.stdout.write(`\nslowest test files (${files.length} files, ${concurrency} at a time):\n`);
  for (const { file, ms } of times.slice(0, count)) process.stdout.write(`${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(cwd, file)}\n`);
}
