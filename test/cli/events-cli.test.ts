import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { cliOn } from '../support/cli.js';

describe('operator CLI: events list', () => {
  test('when orders are created, imported and shipped from the CLI, then events list shows their events oldest first, and --json the records exactly', async (t) => {
    const cli = cliOn(t);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Main Street Pets')).code, 0);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Harbour Pets')).code, 0);
    assert.equal((await cli.run('orders', 'create', '--account', '1', '--pet-id', '9007199254740993', '--quantity', '2', '--id', '9223372036854775807')).code, 0);
    const file = path.join(path.dirname(cli.env.DATABASE_URL.slice('sqlite:'.length)), 'orders.ndjson');
    writeFileSync(file, '{"id":5,"petId":1,"quantity":1}\n{"id":6,"petId":1,"quantity":1}\n');
    const imported = await cli.run('orders', 'import', '--account', '1', file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((await cli.run('orders', 'ship', '5')).code, 0);

    const human = await cli.run('events', 'list', '--account', '1');
    assert.equal(human.code, 0, human.stderr);
    const lines = human.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1).map((line) => line.split('\t').slice(1, 3)), [
      ['order.created', 'order 9223372036854775807'],
      ['order.created', 'order 5'],
      ['order.created', 'order 6'],
      ['order.shipped', 'order 5'],
    ]);
    assert.match(lines.at(-1) ?? '', /^next: --cursor \S+$/);

    const json = await cli.run('events', 'list', '--account', '1', '--type', 'order.created', '--limit', '1', '--json');
    assert.equal(json.code, 0, json.stderr);
    assert.match(json.stdout, /^\{"events":\[\{"id":"evt_[0-9a-f]{32}","type":"order.created","createdAt":"[^"]+","data":\{"order":\{"id":9223372036854775807,"status":"pending","complete":false,"petId":9007199254740993,"quantity":2\}\}\}\],"nextCursor":"[^"]+"\}\n$/);
    const { nextCursor } = JSON.parse(json.stdout) as { nextCursor: string };
    const next = await cli.run('events', 'list', '--account', '1', '--type', 'order.created', '--cursor', nextCursor, '--json');
    assert.deepEqual((JSON.parse(next.stdout) as { events: { data: { order: { id: number } } }[] }).events.map((e) => e.data.order.id), [5, 6]);

    const empty = await cli.run('events', 'list', '--account', '2');
    assert.match(empty.stdout, /^No events\.\n/);
    const unknown = await cli.run('events', 'list', '--account', '1', '--type', 'order.deleted');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown event type "order.deleted"/);
    const noAccount = await cli.run('events', 'list', '--account', '99');
    assert.notEqual(noAccount.code, 0);
    assert.match(noAccount.stderr, /Account 99/);
  });
});
