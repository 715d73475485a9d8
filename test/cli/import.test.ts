import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliOn } from '../support/cli.js';
import { createTestDatabase } from '../support/postgres.js';
import { BIN, ROOT } from '../support/process.js';

function ndjson(lines: readonly string[]): string {
  return `${lines.join('\n')}\n`;
}

const line = (id: number, extra = '') => `{"id":${id},"petId":${1000 + id},"quantity":1${extra}}`;

describe('orders import', () => {
  test('when every line is a valid order, then all are imported as pending, int64 digits intact, and nothing goes to stderr off a terminal', async (t) => {
    const cli = cliOn(t);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Bulk')).code, 0);
    const file = path.join(path.dirname(cli.env.DATABASE_URL.slice('sqlite:'.length)), 'orders.ndjson');
    writeFileSync(
      file,
      ndjson([
        '{"id": 9007199254740993, "petId": 9223372036854775807, "quantity": 2, "shipDate": "2026-12-01T10:00:00+02:00", "complete": true}',
        '',
        '{"petId":-9223372036854775808,"quantity":1}',
        ...Array.from({ length: 2500 }, (_, i) => line(i + 1)),
      ]),
    );

    const result = await cli.run('orders', 'import', '--account', '1', file, '--json');

    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.deepEqual(JSON.parse(result.stdout), { imported: 2502 });
    const listed = await cli.run('orders', 'list', '--account', '1', '--json');
    assert.ok(
      listed.stdout.includes(
        '{"id":9007199254740993,"accountId":1,"petId":9223372036854775807,"quantity":2,"shipDate":"2026-12-01T08:00:00.000Z","complete":true,"status":"pending"}',
      ),
    );
    assert.ok(listed.stdout.includes('"petId":-9223372036854775808'));
    assert.equal((JSON.parse(listed.stdout) as { orders: unknown[] }).orders.length, 2502);
  });

  test('when a line deep in the file is bad, then the error names its line number and nothing is committed', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Bulk');
    const dir = path.dirname(cli.env.DATABASE_URL.slice('sqlite:'.length));
    const cases: { name: string; lines: string[]; message: RegExp }[] = [
      { name: 'json', lines: [...Array.from({ length: 2600 }, (_, i) => line(i + 1)), '{"petId": 1, "quantity": '], message: /^store-orders: Line 2601: not valid JSON\.\n$/ },
      { name: 'quantity', lines: [line(1), line(2), line(3, '').replace('"quantity":1', '"quantity":0')], message: /Line 3: Quantity must be an integer/ },
      { name: 'field', lines: [line(1), '{"petId":1,"quantity":1,"status":"shipped"}'], message: /Line 2: unknown field "status"/ },
      { name: 'date', lines: [line(1), line(2, ',"shipDate":"2026-02-30T00:00:00Z"')], message: /Line 2: Ship date must be/ },
      { name: 'range', lines: [line(1), '{"petId":9223372036854775808,"quantity":1}'], message: /Line 2: "petId" must be an integer in the int64 range/ },
      { name: 'duplicate', lines: [...Array.from({ length: 1500 }, (_, i) => line(i + 1)), '', line(7)], message: /Line 1502: Order id 7 is already taken/ },
    ];
    for (const { name, lines, message } of cases) {
      const file = path.join(dir, `${name}.ndjson`);
      writeFileSync(file, ndjson(lines));
      const result = await cli.run('orders', 'import', '--account', '1', file);
      assert.equal(result.code, 1, name);
      assert.match(result.stderr, message, name);
      const listed = await cli.run('orders', 'list', '--account', '1', '--json');
      assert.deepEqual(JSON.parse(listed.stdout), { orders: [] }, `${name}: nothing committed`);
    }
  });

  test('when the file has a byte order mark, CRLF line ends, a CR inside a line and no final newline, then every order is read and line numbers stay right', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Windows');
    const dir = path.dirname(cli.env.DATABASE_URL.slice('sqlite:'.length));
    const good = path.join(dir, 'crlf.ndjson');
    writeFileSync(good, `\uFEFF${line(1)}\r\n{"id":2,\r"petId":2,"quantity":1}\r\n\r\n${line(3)}`);
    const imported = await cli.run('orders', 'import', '--account', '1', good, '--json');
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout), { imported: 3 });

    const bad = path.join(dir, 'bad-crlf.ndjson');
    writeFileSync(bad, `${line(4)}\r\n${line(5)}\r{"petId":1}\r\n`);
    const refused = await cli.run('orders', 'import', '--account', '1', bad);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'store-orders: Line 2: not valid JSON.\n');
  });

  test('when the account does not exist or the file is missing, then exit 1 with a plain message', async (t) => {
    const cli = cliOn(t);
    const dir = path.dirname(cli.env.DATABASE_URL.slice('sqlite:'.length));
    const file = path.join(dir, 'one.ndjson');
    writeFileSync(file, ndjson([line(1)]));
    const unknown = await cli.run('orders', 'import', '--account', '99', file);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'store-orders: Account 99 does not exist.\n');
    const missing = await cli.run('orders', 'import', '--account', '1', path.join(dir, 'nope.ndjson'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read .*nope\.ndjson: no such file/);
    const directory = await cli.run('orders', 'import', '--account', '1', dir);
    assert.equal(directory.code, 1);
    assert.match(directory.stderr, /^store-orders: Cannot read .*: it is a directory\.\n$/);
    const usage = await cli.run('orders', 'import', '--account', '1');
    assert.equal(usage.code, 2);
  });

  test('when the file is -, then the orders are read from standard input', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Piped');
    const child = spawn(process.execPath, [BIN, 'orders', 'import', '--account', '1', '-'], {
      env: { ...process.env, ...cli.env },
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end(ndjson([line(1), line(2), line(3)]));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Imported 3 orders into account 1.\n');
  });
});

describe('orders import on PostgreSQL', () => {
  test('when the database answers over the network, then every line of the file is still imported', async (t) => {
    const database = await createTestDatabase();
    t.after(() => database.dropLater());
    const cli = cliOn(t, { DATABASE_URL: database.url });
    assert.equal((await cli.run('accounts', 'create', '--name', 'Bulk')).code, 0);
    const file = path.join(path.dirname(cliOn(t).env.DATABASE_URL.slice('sqlite:'.length)), 'orders.ndjson');
    writeFileSync(file, ndjson([line(1), line(2), line(3)]));

    const result = await cli.run('orders', 'import', '--account', '1', file, '--json');

    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { imported: 3 });
  });
});
