import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliOn } from '../support/cli.js';

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

interface EventJson {
  action: string;
  actor: { kind: string; id?: number };
  address?: string;
  target?: { kind: string; id: string };
  details: Record<string, unknown>;
}

describe('operator CLI: audit list', () => {
  test('when the operator creates, rolls and revokes keys, creates and ships an order, then audit list shows each, newest first, by the operator', async (t) => {
    const cli = cliOn(t);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Audited Pets')).code, 0);
    const created = json((await cli.run('keys', 'create', '--account', '1', '--name', 'checkout', '--scopes', 'orders:read', '--json')).stdout);
    const rolled = json((await cli.run('keys', 'roll', String(created.id), '--grace', '0', '--json')).stdout);
    assert.equal((await cli.run('keys', 'revoke', String(rolled.id))).code, 0);
    // Revoking again changes nothing, so it records nothing.
    assert.equal((await cli.run('keys', 'revoke', String(rolled.id))).code, 0);
    assert.equal((await cli.run('orders', 'create', '--account', '1', '--pet-id', '7', '--quantity', '1', '--id', '9007199254740993')).code, 0);
    assert.equal((await cli.run('orders', 'ship', '9007199254740993')).code, 0);

    const listed = await cli.run('audit', 'list', '--account', '1', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const page = json(listed.stdout) as { data: EventJson[]; nextCursor: string | null };
    assert.equal(page.nextCursor, null);
    assert.deepEqual(
      page.data.map(({ action, actor, address, target }) => ({ action, actor, address, target })),
      [
        { action: 'order_shipped', actor: { kind: 'operator' }, address: undefined, target: { kind: 'order', id: '9007199254740993' } },
        { action: 'order_created', actor: { kind: 'operator' }, address: undefined, target: { kind: 'order', id: '9007199254740993' } },
        { action: 'authn_token_revoked', actor: { kind: 'operator' }, address: undefined, target: { kind: 'api_key', id: String(rolled.id) } },
        { action: 'authn_token_rolled', actor: { kind: 'operator' }, address: undefined, target: { kind: 'api_key', id: String(created.id) } },
        { action: 'authn_token_created', actor: { kind: 'operator' }, address: undefined, target: { kind: 'api_key', id: String(created.id) } },
      ],
    );
    assert.deepEqual(page.data[4]?.details, { name: 'checkout', scopes: 'orders:read' });
    assert.equal(page.data[3]?.details.newKeyId, rolled.id);
    // The secrets never reach the trail.
    assert.ok(!listed.stdout.includes(String(created.key)) && !listed.stdout.includes(String(rolled.key)));

    const human = await cli.run('audit', 'list', '--account', '1');
    const lines = human.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 5);
    assert.match(lines[0] ?? '', /^\d{4}-\d\d-\d\dT[\d:.]+Z\torder_shipped\toperator\t-\torder 9007199254740993$/);
    assert.match(lines[4] ?? '', /\tauthn_token_created\toperator\t-\tapi_key 1\tname="checkout" scopes="orders:read"$/);
  });

  test('when --limit is smaller than the trail, then a page and the command for the next, which continues where it stopped', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Paged Pets');
    for (let i = 0; i < 3; i++) await cli.run('keys', 'create', '--account', '1');
    const first = await cli.run('audit', 'list', '--account', '1', '--limit', '2');
    // The command carries the database it ran on (a file of its own here), to work pasted into another shell.
    const more = new RegExp(`^More: DATABASE_URL=${cli.env.DATABASE_URL.replaceAll('.', '\\.')} store-orders audit list --account 1 --cursor (\\S+)$`, 'm').exec(first.stdout);
    assert.ok(more?.[1] !== undefined, first.stdout);
    assert.match(first.stdout, /\tapi_key 3\t.*\n.*\tapi_key 2\t.*\nMore: /);
    const rest = json((await cli.run('audit', 'list', '--account', '1', '--cursor', more[1], '--json')).stdout) as { data: EventJson[]; nextCursor: null };
    assert.deepEqual(rest.data.map((e) => e.target?.id), ['1']);
    assert.equal(rest.nextCursor, null);
  });

  test('when the account is missing, --limit is out of range or the cursor is forged, then a one-line error and a non-zero exit', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Quiet Pets');
    assert.equal((await cli.run('audit', 'list', '--account', '1')).stdout, 'No audit trail entries.\n');
    const cases: [string[], number, RegExp][] = [
      [['audit', 'list', '--account', '9'], 1, /^store-orders: Account 9 does not exist\.\n$/],
      [['audit', 'list'], 2, /--account/],
      [['audit', 'list', '--account', '1', '--limit', '0'], 2, /--limit must be a positive integer/],
      [['audit', 'list', '--account', '1', '--limit', '201'], 1, /limit is not valid\. Expected: an integer from 1 to 200/],
      [['audit', 'list', '--account', '1', '--cursor', 'forged.AAAAAAAAAAAAAAAAAAAAAA'], 1, /cursor is not valid/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await cli.run(...argv);
      assert.equal(result.code, code, argv.join(' '));
      assert.match(result.stderr, message, argv.join(' '));
    }
  });
});
