import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { sharedDatabases } from '../support/e2e-databases.js';
import { BIN, ROOT, runBin } from '../support/process.js';

/** About 1 MB of orders with ids: far more than a pipe buffers, so the write completes only once the import has read most of it. */
function orders(count: number): string {
  let text = '';
  for (let id = 1; id <= count; id++) text += `{"id":${id},"petId":${1000 + id},"quantity":1}\n`;
  return text;
}

for (const database of sharedDatabases) {
  describe(`orders import interrupted (${database.name})`, () => {
    test('when Ctrl-C (SIGINT) arrives during an import, then it says the import was rolled back, exits 130 and no order is in the database', async (t) => {
      const shared = await database.create(t);
      const env = { DATABASE_URL: shared.url };
      assert.equal((await runBin(['accounts', 'create', '--name', 'Bulk'], env)).code, 0);

      const child = spawn(process.execPath, [BIN, 'orders', 'import', '--account', '1', '-', '--json'], {
        env: { ...process.env, ...env },
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      t.after(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      // Standard input stays open: the import is mid-way, waiting for more, when the signal comes.
      await new Promise<void>((resolve, reject) => child.stdin.write(orders(20_000), (error) => (error ? reject(error) : resolve())));
      child.kill('SIGINT');
      const { code, signal } = await exited;

      assert.deepEqual({ code, signal }, { code: 130, signal: null }, stderr);
      assert.equal(stderr, 'store-orders: interrupted: the import was rolled back; no orders were imported.\n');
      assert.deepEqual(JSON.parse(stdout), {
        code: 'interrupted',
        message: 'interrupted: the import was rolled back; no orders were imported.',
        exitCode: 130,
      });
      const listed = await runBin(['orders', 'list', '--account', '1', '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(JSON.parse(listed.stdout), { orders: [] });
      // The database is usable afterwards: nothing was left locked or half-written.
      const again = await runBin(['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '1'], env);
      assert.equal(again.code, 0, again.stderr);
    });
  });
}
