import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { cliOn } from '../support/cli.js';

const LOOPBACK = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };

test('when webhooks create, list, rotate-secret and delete run, then each secret is shown once and list never shows one', async (t) => {
  const cli = cliOn(t, LOOPBACK);
  assert.equal((await cli.run('accounts', 'create', '--name', 'Acme')).code, 0);
  const created = await cli.run('webhooks', 'create', '--account', '1', '--url', 'http://127.0.0.1:9/hooks', '--events', 'order.cancelled,order.shipped', '--json');
  assert.equal(created.code, 0, created.stderr);
  const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[]; status: string };
  assert.match(endpoint.secret, /^whsec_/);
  // A secret the standardwebhooks package accepts.
  assert.doesNotThrow(() => new Webhook(endpoint.secret));
  assert.deepEqual(endpoint.eventTypes, ['order.cancelled', 'order.shipped']);

  const listed = await cli.run('webhooks', 'list', '--account', '1');
  assert.equal(listed.code, 0);
  assert.match(listed.stdout, new RegExp(`^${endpoint.id}\tenabled\thttp://127.0.0.1:9/hooks\torder.cancelled,order.shipped$`, 'm'));
  assert.ok(!listed.stdout.includes(endpoint.secret));

  const rotated = await cli.run('webhooks', 'rotate-secret', endpoint.id, '--account', '1');
  assert.equal(rotated.code, 0, rotated.stderr);
  assert.match(rotated.stdout, /whsec_/);
  assert.ok(!rotated.stdout.includes(endpoint.secret));

  const otherAccount = await cli.run('webhooks', 'delete', endpoint.id, '--account', '2');
  assert.notEqual(otherAccount.code, 0);
  assert.equal((await cli.run('webhooks', 'delete', endpoint.id, '--account', '1')).code, 0);
  assert.match((await cli.run('webhooks', 'list', '--account', '1')).stdout, /No webhook endpoints\./);
});

test('when webhooks create gets a refused URL or an unknown event type, then it fails naming why', async (t) => {
  const cli = cliOn(t);
  await cli.run('accounts', 'create', '--name', 'Acme');
  const metadata = await cli.run('webhooks', 'create', '--account', '1', '--url', 'https://169.254.169.254/latest');
  assert.notEqual(metadata.code, 0);
  assert.match(metadata.stderr, /cloud metadata/);
  const unknown = await cli.run('webhooks', 'create', '--account', '1', '--url', 'https://hooks.example.com/x', '--events', 'order.exploded');
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /unknown event type "order\.exploded"/);
});

test('when webhooks create and update set a rate limit, then list shows it, none removes it, and a bad value fails naming why', async (t) => {
  const cli = cliOn(t, LOOPBACK);
  await cli.run('accounts', 'create', '--name', 'Acme');
  const created = await cli.run('webhooks', 'create', '--account', '1', '--url', 'http://127.0.0.1:9/hooks', '--rate-limit', '20', '--json');
  assert.equal(created.code, 0, created.stderr);
  const endpoint = JSON.parse(created.stdout) as { id: string; rateLimit: number | null };
  assert.equal(endpoint.rateLimit, 20);
  assert.match((await cli.run('webhooks', 'list', '--account', '1')).stdout, new RegExp(`^${endpoint.id}\tenabled\thttp://127.0.0.1:9/hooks\tall events\t20/s$`, 'm'));
  const lowered = await cli.run('webhooks', 'update', endpoint.id, '--account', '1', '--rate-limit', '5', '--json');
  assert.equal(lowered.code, 0, lowered.stderr);
  assert.equal((JSON.parse(lowered.stdout) as { rateLimit: number }).rateLimit, 5);
  const tooMany = await cli.run('webhooks', 'update', endpoint.id, '--account', '1', '--rate-limit', '20000');
  assert.notEqual(tooMany.code, 0);
  assert.match(tooMany.stderr, /rateLimit must be a whole number of deliveries a second, 1 to 10000/);
  const removed = await cli.run('webhooks', 'update', endpoint.id, '--account', '1', '--rate-limit', 'none', '--status', 'disabled', '--json');
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(JSON.parse(removed.stdout), { ...JSON.parse(lowered.stdout), rateLimit: null, status: 'disabled' });
  const nothing = await cli.run('webhooks', 'update', endpoint.id, '--account', '1');
  assert.notEqual(nothing.code, 0);
  assert.match(nothing.stderr, /Nothing to change/);
  assert.match((await cli.run('audit', 'list', '--account', '1')).stdout, /webhook_endpoint_updated/);
});
