import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { runCli } from '../../src/cli/cli.js';

async function cli(t: TestContext, dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
  const code = await runCli(args, { stdout, stderr, env: { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` }, cwd: dir }, async () => {
    t.assert.fail('serve must not run');
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

test('when `pets create --account <id> --name <name> --json` runs, then it prints the new pet with its int64 id', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-pets-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal((await cli(t, dir, ['accounts', 'create', '--name', 'Shop'])).code, 0);

  const created = await cli(t, dir, ['pets', 'create', '--account', '1', '--name', 'Rex', '--json']);
  assert.equal(created.code, 0, created.stderr);
  const pet = JSON.parse(created.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(pet), ['id', 'accountId', 'name', 'createdAt']);
  assert.equal(pet.name, 'Rex');
  assert.equal(pet.accountId, 1);

  const big = await cli(t, dir, ['pets', 'create', '--account', '1', '--name', 'Max', '--id', '9007199254740993', '--json']);
  assert.match(big.stdout, /^\{"id":9007199254740993,/);

  const human = await cli(t, dir, ['pets', 'create', '--account', '1', '--name', 'Bella']);
  assert.match(human.stdout, /^Created pet \d+ \(Bella\) for account 1\.\n$/);
});

test('when `pets create` names an unknown account or omits --name, then it fails with exit 1 or 2', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-pets-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const unknown = await cli(t, dir, ['pets', 'create', '--account', '9', '--name', 'Rex']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Account 9 does not exist/);
  const usage = await cli(t, dir, ['pets', 'create', '--account', '1']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--name is required/);
});
