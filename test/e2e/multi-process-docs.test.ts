import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { ROOT, runBin, startServer, type RunningServer } from '../support/process.js';

/*
 * Issue 19 #2: the documented ways of running several processes on one
 * machine must work as written. The commands are read from the documents
 * (shell lines `VAR=value … ./bin/store-orders serve &`, and the systemd
 * template's Environment= line with the instances `systemctl enable` names),
 * and run with only the documented port numbers mapped to free ones (the
 * machine running the tests may hold 3001) and a fresh SQLite database.
 */

const DOCUMENTS = ['DEPLOYMENT.md', 'README.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((name) => name.endsWith('.md'));

/** One documented group of processes started together: each entry is the environment a process is given. */
interface Group {
  where: string;
  processes: Record<string, string>[];
}

function assignments(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

/** Every multi-process group the documents show. */
function documentedGroups(): Group[] {
  const groups: Group[] = [];
  for (const document of DOCUMENTS) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    for (const [, block] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const lines = [...(block ?? '').matchAll(/^((?:[A-Z_]+=\S+ )+)\.\/bin\/store-orders serve &/gm)].map((m) => assignments(m[1] ?? ''));
      if (lines.length > 1) groups.push({ where: `${document} (shell)`, processes: lines });
    }
    const environment = /^Environment=(.*%i.*)$/m.exec(text)?.[1];
    const instances = /systemctl enable --now ((?:store-orders@\d+ ?)+)/.exec(text)?.[1];
    if (environment !== undefined && instances !== undefined) {
      const ports = [...instances.matchAll(/@(\d+)/g)].map((m) => m[1] ?? '');
      groups.push({ where: `${document} (systemd)`, processes: ports.map((port) => assignments(environment.replaceAll('%i', port))) });
    }
  }
  return groups;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The group's environments with each documented port number replaced by a free one (the same number, the same port). */
async function onFreePorts(group: Group): Promise<Record<string, string>[]> {
  const mapped = new Map<string, string>();
  const result = [];
  for (const env of group.processes) {
    const copy = { ...env };
    for (const name of ['PORT', 'QUICKSTART_PORT', 'METRICS_PORT', 'PORTAL_PORT']) {
      const value = copy[name];
      if (value === undefined || !/^\d+$/.test(value) || value === '0') continue;
      if (!mapped.has(value)) mapped.set(value, String(await freePort()));
      copy[name] = mapped.get(value) ?? value;
    }
    result.push(copy);
  }
  return result;
}

function freshDatabase(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-multi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${path.join(dir, 'store.db')}`;
}

describe('the documented multi-process commands', () => {
  const groups = documentedGroups();

  test('when the documents are read, then they show several processes in DEPLOYMENT.md (shell and systemd) and docs/operations.md', () => {
    assert.deepEqual(groups.map((group) => group.where).sort(), ['DEPLOYMENT.md (shell)', 'DEPLOYMENT.md (systemd)', 'docs/operations.md (shell)']);
  });

  for (const group of groups) {
    test(`when the processes of ${group.where} are started as written, then every one listens and answers`, async (t) => {
      const database = freshDatabase(t);
      const servers: RunningServer[] = [];
      // Started one after the other, as the shell does with `&` (each waits for its greeting).
      for (const env of await onFreePorts(group)) {
        // startServer's own PORT/QUICKSTART_PORT/METRICS_PORT/PORTAL_PORT defaults (0) apply only to what the document leaves unset.
        const documented = { QUICKSTART_PORT: '3001', METRICS_PORT: '9464', PORTAL_PORT: '3002', ...env };
        const server = await startServer(t, { DATABASE_URL: database, HOST: '127.0.0.1', ...documented });
        assert.equal(new URL(server.baseUrl).port, env.PORT);
        if (documented.QUICKSTART_PORT === 'off') assert.equal(server.quickstartUrl, undefined);
        else assert.equal(new URL(server.quickstartUrl ?? 'http://x').port, documented.QUICKSTART_PORT);
        servers.push(server);
      }
      for (const server of servers) assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      for (const server of servers) server.child.kill('SIGTERM');
      for (const server of servers) assert.equal(await server.exited, 0);
    });
  }
});

describe('a port conflict', () => {
  test('when PORT is taken, then serve exits 1 naming PORT', async (t) => {
    const database = freshDatabase(t);
    const first = await startServer(t, { DATABASE_URL: database, QUICKSTART_PORT: 'off' });
    const port = new URL(first.baseUrl).port;
    const result = await runBin(['serve'], { DATABASE_URL: database, HOST: '127.0.0.1', PORT: port, QUICKSTART_PORT: 'off' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^store-orders: cannot serve: PORT=${port}: 127\\.0\\.0\\.1:${port} is already in use; choose another PORT`));
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
  });

  test('when QUICKSTART_PORT is taken, then serve exits 1 naming QUICKSTART_PORT', async (t) => {
    const database = freshDatabase(t);
    const first = await startServer(t, { DATABASE_URL: database });
    const taken = new URL(first.quickstartUrl ?? 'http://x').port;
    const result = await runBin(['serve'], { DATABASE_URL: database, HOST: '127.0.0.1', PORT: '0', QUICKSTART_PORT: taken });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`^store-orders: cannot serve: QUICKSTART_PORT=${taken}: 127\\.0\\.0\\.1:${taken} is already in use; choose another QUICKSTART_PORT`));
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
  });

  test('when PORT and QUICKSTART_PORT are the same, then serve refuses the configuration and names both', async () => {
    const result = await runBin(['serve'], { DATABASE_URL: 'sqlite:/tmp/never-created/x.db', PORT: '3001', QUICKSTART_PORT: '3001' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /QUICKSTART_PORT must differ from PORT \(both 3001\)/);
  });
});
