import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './embedded-postgres.js';

export interface PgBouncer {
  /** The URL of the `postgres` database through PgBouncer, same user and password as the server's. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Debian's PgBouncer (in /usr/sbin, which a non-root PATH may lack), or one on PATH. */
export function findPgBouncer(): string | undefined {
  const dirs = ['/usr/sbin', '/usr/bin', ...(process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '')];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'pgbouncer');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory; try the next.
    }
  }
  return undefined;
}

/**
 * Starts PgBouncer on loopback in front of a PostgreSQL server, in
 * transaction pooling mode and otherwise with its stock settings, so that
 * whatever the suites run through it meets what a production pooler
 * enforces. The wildcard database entry lets tests reach each fresh
 * database they create on the server. PgBouncer refuses to run as root, so
 * as root it runs as `postgres` (the user embedded-postgres runs the server as).
 */
export async function startPgBouncer(binary: string, server: { url: string }): Promise<PgBouncer> {
  const target = new URL(server.url);
  const user = decodeURIComponent(target.username);
  const password = decodeURIComponent(target.password);
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;
  writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o644 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No Unix socket: nothing here needs one, and it would collide with another run's.
      'unix_socket_dir =',
      'pool_mode = transaction',
      // The client authenticates to PgBouncer with SCRAM; PgBouncer logs in to the
      // server with the same plain-text password, whatever method the server asks for.
      'auth_type = scram-sha-256',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const args = [...(userInfo().uid === 0 ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = new URL(server.url);
  url.port = String(port);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PgBouncer did not start: ${String(error)}\n${output}`);
      }
      await sleep(50);
    }
  }
  return { url: url.toString(), stop };
}
