/**
 * The `npm test` launcher. Node's test runner has no global set-up and runs
 * every file in its own process, so this starts ONE PostgreSQL for the whole
 * run (unless TEST_DATABASE_URL names one), migrates one template database
 * on it and one SQLite template file that every test's fresh database is
 * copied from (test/support/templates.ts), runs the test files given as
 * arguments with it (a folder stands for every *.test.ts under it, at any
 * depth, as test/ mirrors src/; the second tier, test/long/, only when named
 * itself), TEST_CONCURRENCY files at a time, always stops it, prints the ten
 * slowest files, and exits with the runner's code. With `--check` it also runs
 * `npm run check` (type-check, lint, unused code) at the same time as the
 * test files, which leave part of the machine idle while they wait on
 * databases and browsers; its output is printed after the tests, and the run
 * fails when either fails. It also starts PgBouncer
 * (transaction pooling) in front of that server and passes its URL as
 * TEST_PGBOUNCER_URL, so the storage contract suite runs through a pooler
 * too; without a pgbouncer binary it says so and skips those runs, except
 * under CI, where it must run.
 *
 *   node --import tsx test/run.ts --check test          # npm test
 *   node --import tsx test/run.ts test/long             # npm run test:long
 *   node --import tsx test/run.ts test/orders test/http/errors.test.ts
 *   node --import tsx test/run.ts --except=test/hosts/portal/accessibility-browser.test.ts test test/long
 *
 * `--except=<file>` leaves one file out of the folders named (CI's second
 * run, .ci/run, leaves out what a second run would only repeat).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
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
  process.stderr.write(`test/run.ts: TEST_CONCURRENCY must be a whole number of processes, at least 1; got ${String(process.env.TEST_CONCURRENCY)}\n`);
  process.exit(2);
}
/** Test files per process, on average (inGroups below). */
const filesPerProcess = Number(process.env.TEST_FILES_PER_PROCESS ?? 10);
if (!Number.isInteger(filesPerProcess) || filesPerProcess < 1) {
  process.stderr.write(`test/run.ts: TEST_FILES_PER_PROCESS must be a whole number, at least 1; got ${String(process.env.TEST_FILES_PER_PROCESS)}\n`);
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

const args = process.argv.slice(2);
const withCheck = args.includes('--check');
const excepted = new Set(args.filter((arg) => arg.startsWith('--except=')).map((arg) => path.resolve(arg.slice('--except='.length))));
for (const file of excepted) {
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) {
    process.stderr.write(`test/run.ts: --except names no test file: ${path.relative(process.cwd(), file)}\n`);
    process.exit(2);
  }
}
const files = args
  .filter((arg) => !arg.startsWith('--'))
  .flatMap((arg) => (statSync(arg).isDirectory() ? testFilesUnder(arg) : [arg]))
  .filter((file) => !excepted.has(path.resolve(file)));
if (files.length === 0) {
  process.stderr.write('usage: node --import tsx test/run.ts [--check] [--except=<file>…] <test files or folders…>\n');
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
const TIMES_CACHE = path.join(import.meta.dirname, '..', 'node_modules', '.cache', 'store-orders', 'test-times.json');
const runner = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(import.meta.dirname, 'support', 'run-files.ts'), String(concurrency), timesFile, ...inGroups(files)],
  { env, stdio: 'inherit' },
);
const check = withCheck ? startCheck() : undefined;
const forward = (signal: NodeJS.Signals) => {
  runner.kill(signal);
  check?.child.kill(signal);
};
process.on('SIGINT', forward);
process.on('SIGTERM', forward);

const code = await new Promise<number>((resolve) => {
  runner.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
  runner.on('error', () => resolve(1));
});
await stopAll();
printSlowest(10);
rememberTimes();
const checkCode = check === undefined ? 0 : await reportCheck(check.done);
process.exit(code !== 0 ? code : checkCode);

/** `npm run check` beside the test files; its output is held until they end (reportCheck), so the two do not interleave. */
function startCheck(): { child: ReturnType<typeof spawn>; done: Promise<{ code: number; seconds: number; output: Buffer }> } {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', 'check'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  const done = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      resolve(1);
    });
    child.on('close', (exitCode) => resolve(exitCode ?? 1));
  }).then((code) => ({ code, seconds: Math.round((Date.now() - started) / 1000), output: Buffer.concat(output) }));
  return { child, done };
}

async function reportCheck(done: Promise<{ code: number; seconds: number; output: Buffer }>): Promise<number> {
  const { code, seconds, output } = await done;
  process.stdout.write(`\nnpm run check (type-check, lint, unused code), run beside the tests: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n`);
  process.stdout.write(output);
  return code;
}

/** This run's file times, from the file-times reporter, slowest first. */
function thisRunsTimes(): { file: string; ms: number }[] {
  try {
    return readFileSync(timesFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { file: string; ms: number })
      .sort((a, b) => b.ms - a.ms);
  } catch {
    return [];
  }
}

/**
 * The files as the processes that run them: a few files per process, each
 * process an entry module importing its files one after the other. A file
 * alone in a process paid for loading and compiling the whole application
 * again (about two seconds of CPU per file, most of the suite's CPU); the
 * files of one process share that, while each test still gets its own
 * databases and servers. Processes are filled longest file first and started
 * longest first (four per core at most), so that the end of a run is not
 * one long process alone on one core. A file's length is its time in the
 * last run on this checkout (kept in node_modules/.cache, so a clean
 * checkout has none); without one, a guess: browsers, spawned servers and
 * the storage contract suite first, then by size. TEST_FILES_PER_PROCESS=1
 * runs every file in a process of its own.
 */
function inGroups(testFiles: string[]): string[] {
  const previous = previousTimes();
  const guess = (file: string) => {
    const kind = /browser|portman|multi-process|backup/.test(file) ? 4 : file.includes(`${path.sep}e2e${path.sep}`) ? 3 : file.includes(`contract${path.sep}storage`) ? 2 : 1;
    return (kind * 1_000_000 + statSync(file).size) / 100;
  };
  const weight = (file: string) => previous.get(path.resolve(file)) ?? guess(file);
  const longest = [...testFiles].sort((a, b) => weight(b) - weight(a));
  if (filesPerProcess === 1) return longest;
  const groups = Array.from({ length: Math.min(longest.length, Math.ceil(longest.length / filesPerProcess)) }, () => ({ files: [] as string[], ms: 0 }));
  for (const file of longest) {
    const lightest = groups.reduce((a, b) => (b.ms < a.ms ? b : a));
    lightest.files.push(file);
    lightest.ms += weight(file);
  }
  return groups
    .sort((a, b) => b.ms - a.ms)
    .map((group, index) => {
      if (group.files.length === 1) return group.files[0] as string;
      const entry = path.join(timesDir, `process-${String(index + 1).padStart(2, '0')}.test.mjs`);
      writeFileSync(entry, group.files.map((file) => `await import(${JSON.stringify(pathToFileURL(path.resolve(file)).href)});\n`).join(''));
      return entry;
    });
}

function previousTimes(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(TIMES_CACHE, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

/** Keeps this run's times for the next run's order (merged: a run of a few files keeps the others'). */
function rememberTimes(): void {
  const times = Object.fromEntries(previousTimes());
  for (const { file, ms } of thisRunsTimes()) times[path.resolve(file)] = ms;
  try {
    mkdirSync(path.dirname(TIMES_CACHE), { recursive: true });
    writeFileSync(TIMES_CACHE, JSON.stringify(times));
  } catch {
    // Only an ordering hint: a read-only checkout runs in the guessed order.
  }
  rmSync(timesDir, { recursive: true, force: true });
}

/** The `count` slowest files of this run, from the file-times reporter. */
function printSlowest(count: number): void {
  const times = thisRunsTimes();
  if (times.length === 0) return;
  const cwd = process.cwd();
  process.stdout.write(`\nslowest test files (${files.length} files, ${concurrency} at a time):\n`);
  for (const { file, ms } of times.slice(0, count)) process.stdout.write(`${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(cwd, file)}\n`);
}
