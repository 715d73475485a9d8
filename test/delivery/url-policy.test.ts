import { testOutages } from '../support/app.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhooksDispatcher } from '../../src/composition.js';
import { scheduledRetryDelayMs } from '../../src/delivery/retry-schedule.js';
import { createUrlPolicy, RefusedUrlError, type Resolver } from '../../src/delivery/url-policy.js';
import { sqliteBackend } from '../support/storage.js';
import { capturingLogger } from '../support/logs.js';
import { eventually } from '../support/quickstart.js';
import { startHookReceiver, webhooksHarness } from '../webhooks/support.js';

/** DNS is outside our code: a fake zone stands in for it. */
function zone(records: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = records[hostname];
    if (addresses === undefined) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const ZONE = zone({
  'public.example': ['93.184.216.34'],
  'internal.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'metadata.example': ['169.254.169.254'],
  'v6.example': ['2606:2800:220:1:248:1893:25c8:1946'],
});

test('when a name resolves to a private address, or to any refused address among public ones, then the URL is refused naming the range', async () => {
  const policy = createUrlPolicy({ allowHttp: false, allowedNetworks: [] }, ZONE);
  assert.deepEqual(await policy.check('https://public.example/hook'), { url: new URL('https://public.example/hook'), address: '93.184.216.34', family: 4 });
  assert.equal((await policy.check('https://v6.example/hook')).family, 6);
  await assert.rejects(policy.check('https://internal.example/hook'), (error: unknown) => error instanceof RefusedUrlError && /internal\.example \(10\.0\.0\.5\).*private/.test(error.message));
  await assert.rejects(policy.check('https://mixed.example/hook'), /192\.168\.1\.10.*private/);
  await assert.rejects(policy.check('https://metadata.example/hook'), /cloud metadata/);
  await assert.rejects(policy.check('https://nowhere.example/hook'), /could not be resolved/);
  await assert.rejects(policy.check('http://public.example/hook'), /must use https/);
});

test('when WEBHOOK_ALLOWED_NETWORKS lists a range, then addresses in it are allowed and others in refused ranges are not', async () => {
  const policy = createUrlPolicy({ allowHttp: true, allowedNetworks: ['10.0.0.0/24', '127.0.0.1'] }, ZONE);
  assert.equal((await policy.check('http://internal.example/x')).address, '10.0.0.5');
  assert.equal((await policy.check('http://127.0.0.1:8080/x')).address, '127.0.0.1');
  await assert.rejects(policy.check('http://127.0.0.2/x'), /loopback/);
  await assert.rejects(policy.check('http://10.0.1.5/x'), /private/);
});

test('when a URL is refused for being on the caller\'s own machine or network, then the message points to store-orders listen and to what the operator can allow; other refusals get no such hint', async () => {
  const strict = createUrlPolicy({ allowHttp: false, allowedNetworks: [] }, ZONE);
  const listen = /run `store-orders listen --forward-to <your URL>` with your API key instead/;
  for (const url of ['https://127.0.0.1:8443/webhooks', 'https://internal.example/hook', 'https://[::1]/x']) {
    const error = await strict.check(url).then(() => assert.fail(url), (refused: unknown) => refused);
    assert.ok(error instanceof RefusedUrlError, url);
    assert.match(error.message, listen, url);
    assert.match(error.message, /allow its range with WEBHOOK_ALLOWED_NETWORKS\.$/, url);
    assert.match(error.reason, /range, which webhooks may not reach\.$/, 'the reason alone, for the delivery log');
  }
  // http to a local host: the scheme is refused first, and the hint names WEBHOOK_ALLOW_HTTP too.
  for (const url of ['http://localhost:8080/webhooks', 'http://127.0.0.1:8080/webhooks', 'http://[::1]:8080/', 'http://192.168.1.20/hook', 'http://app.localhost/hook']) {
    await assert.rejects(strict.check(url), /^RefusedUrlError: The URL must use https\. To receive events on your own machine, run `store-orders listen.*WEBHOOK_ALLOW_HTTP=true and the range with WEBHOOK_ALLOWED_NETWORKS\.$/, url);
  }
  for (const url of ['http://public.example/hook', 'https://metadata.example/hook', 'https://nowhere.example/hook', 'ftp://127.0.0.1/x', 'https://user:pw@localhost/x']) {
    await assert.rejects(strict.check(url), (error: unknown) => error instanceof RefusedUrlError && !/store-orders listen/.test(error.message), url);
  }
});

test('when an IPv6 address embeds or reaches IPv4 or site-local space (IPv4-compatible, IPv4-mapped in any spelling, IPv4-translated, 6to4, Teredo, local NAT64, site-local), then it is refused unless an allowed network lists it', async () => {
  const policy = createUrlPolicy({ allowHttp: true, allowedNetworks: [] }, ZONE);
  const refused: [string, RegExp][] = [
    ['http://[::127.0.0.1]/x', /IPv4-compatible/],
    ['http://[::a00:5]/x', /IPv4-compatible/],
    ['http://[::ffff:127.0.0.1]/x', /loopback/],
    ['http://[::ffff:7f00:1]/x', /loopback/],
    ['http://[::ffff:a9fe:a9fe]/x', /cloud metadata/],
    ['http://[::ffff:0:7f00:1]/x', /IPv4-translated/],
    ['http://[2002:7f00:1::1]/x', /6to4/],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x', /Teredo/],
    ['http://[64:ff9b:1::a00:5]/x', /NAT64/],
    ['http://[fec0::1]/x', /site-local/],
  ];
  for (const [url, why] of refused) await assert.rejects(policy.check(url), why, url);
  // A public IPv4 address mapped into IPv6 is that public address.
  assert.equal((await policy.check('http://[::ffff:5db8:d822]/x')).address, '::ffff:5db8:d822');
  const allowing = createUrlPolicy({ allowHttp: true, allowedNetworks: ['2002::/16', 'fec0::/10'] }, ZONE);
  assert.equal((await allowing.check('http://[2002:7f00:1::1]/x')).family, 6);
  assert.equal((await allowing.check('http://[fec0::1]/x')).family, 6);
});

test('when the receiver answers a redirect, then it is not followed and the attempt fails with that status', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend);
  const { accountId, auth } = await h.tenant();
  const target = await startHookReceiver(t);
  const receiver = await startHookReceiver(t, () => ({ status: 307, headers: { location: target.url } }));
  const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  const { id } = created.json<{ id: string }>();
  await h.services.orderOperations.createOrder({ accountId });
  h.startEngine();
  await receiver.next(1);
  const delivery = await eventually(async () => {
    const page = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${id}/deliveries`, headers: auth });
    const [first] = page.statusCode === 200 ? page.json<{ data: { statusCode: number | null; error: string | null }[] }>().data : [];
    return first?.statusCode === null || first === undefined ? undefined : first;
  });
  assert.equal(delivery.statusCode, 307);
  assert.match(String(delivery.error), /HTTP 307/);
  assert.equal(target.received.length, 0);
});

test('when an endpoint URL became refused after it was created, then the delivery is not sent and the attempt fails naming why', async (t) => {
  // Created while loopback was allowed; the engine runs with the default rules.
  const permissive = await webhooksHarness(t, sqliteBackend);
  const { accountId, auth } = await permissive.tenant();
  const receiver = await startHookReceiver(t);
  const created = await permissive.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  const { id } = created.json<{ id: string }>();
  await permissive.services.orderOperations.createOrder({ accountId });
  const strict = await webhooksHarness(t, sqliteBackend, { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_POLL_INTERVAL_MS: '20' });
  const { logger } = capturingLogger();
  const engine = createWebhooksDispatcher({ config: strict.config, storage: permissive.storage, services: permissive.services }, logger, testOutages(logger, permissive.storage));
  engine.start();
  t.after(() => engine.stop());
  const delivery = await eventually(async () => {
    const page = await permissive.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${id}/deliveries`, headers: auth });
    const [first] = page.statusCode === 200 ? page.json<{ data: { error: string | null }[] }>().data : [];
    return first?.error === null || first === undefined ? undefined : first;
  });
  assert.match(String(delivery.error), /loopback/);
  assert.equal(receiver.received.length, 0);
});

test('when the retry schedule is read, then each delay is its entry ±20 % and the delivery is given up after the last', () => {
  const schedule = [5000, 300_000, 36_000_000];
  assert.deepEqual([1, 2, 3].map((n) => scheduledRetryDelayMs(schedule, n, 0)), [4000, 240_000, 28_800_000]);
  assert.deepEqual([1, 2, 3].map((n) => scheduledRetryDelayMs(schedule, n, 0.5)), [5000, 300_000, 36_000_000]);
  assert.equal(scheduledRetryDelayMs(schedule, 1, 0.999_999), 6000);
  assert.equal(scheduledRetryDelayMs(schedule, 4, 0.5), undefined);
});
