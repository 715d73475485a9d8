/**
 * The `npm test` launcher. Node's test runner has no global set-up and runs
 * every file in its own process, so this starts ONE PostgreSQL for the whole
 * run (unless TEST_DATABASE_URL names one), runs the test files given as
 * arguments with it, always stops it, and exits with the runner's code.
 *
 *   node --import tsx test/run.ts test/*\/*.test.ts
 */
import { spawn } from 'node:child_process';
import { startEmbeddedPostgres, type EmbeddedServer } from './support/embedded-postgres.js';

const files = process.argv.slice(2);
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

const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { env, stdio: 'inherit' });
const forward = (signal: NodeJS.Signals) => runner.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);

const code = await new Promise<number>((resolve) => {
  runner.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
  runner.on('error', () => resolve(1));
});
await server?.destroy();
process.exit(code);
