import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { ApiKeyScope } from '../../src/api-keys/api-key-scopes.js';
import { cliOn, type RunningCli } from '../support/cli.js';
import { spawnBin, waitFor } from '../support/process.js';
import { createTenant, startReceiver, type ReceivedRequest, type ReceiverAnswer } from '../support/quickstart.js';
import { closedPort } from '../support/ports.js';
import { sqliteBackend } from '../support/storage.js';
import { webhooksHarness } from '../webhooks/support.js';

/**
 * `store-orders listen` against a real server (the store host over a real
 * SQLite database, listening on loopback), forwarding to a real receiver on
 * loopback that verifies each delivery with the standardwebhooks package.
 * Every wait is bounded (waitFor's deadline, the tests' timeouts).
 */

const WAIT_MS = 15_000;
const TEST_OPTIONS = { timeout: 60_000 };

/** The store host on an ephemeral loopback port and a store with a key (every scope unless `scopes` says otherwise). */
async function storeServer(t: TestContext, scopes?: readonly ApiKeyScope[]) {
  // The default rules: loopback and http refused, as on a real server.
  const h = await webhooksHarness(t, sqliteBackend, {});
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const { account, key } = await createTenant(h.services, 'Dev Pets', scopes);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    h,
    baseUrl,
    key,
    accountId: account.id,
    /** Cancels an order through the API, as the store's own app would. */
    async cancel(orderId: bigint) {
      const response = await fetch(`${baseUrl}/v1/store/orders/${orderId}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      assert.equal(response.status, 204);
    },
    /** The event exactly as the feed serves it. */
    async eventText(id: string) {
      return (await fetch(`${baseUrl}/v2/events/${id}`, { headers: { authorization: `Bearer ${key}` } })).text();
    },
  };
}

/** A receiver at /webhooks that answers `respond`'s status. */
function receiverAt(t: TestContext, respond: (request: ReceivedRequest, index: number) => ReceiverAnswer = () => 204) {
  return startReceiver(t, respond, '/webhooks');
}

const secretOf = (stdout: string) => /^Ready\. Your webhook signing secret is (whsec_\S+) \(kept in (.+)\)\.$/m.exec(stdout);

/** The secret of the Ready line, or of the Ready record with --json. */
function readySecret(stdout: string): string | undefined {
  const [first = ''] = stdout.split('\n');
  if (first.startsWith('{') && stdout.includes('\n')) return (JSON.parse(first) as { secret?: string }).secret;
  return secretOf(stdout)?.[1];
}

/** Starts listen in-process; Ctrl-C and a bounded wait for its end when the test ends, whatever happened. */
async function startListen(t: TestContext, cli: ReturnType<typeof cliOn>, ...args: string[]): Promise<RunningCli & { secret: string }> {
  const running = cli.start('listen', ...args);
  t.after(async () => {
    running.interrupt();
    await Promise.race([running.exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  });
  let code: number | undefined;
  void running.exited.then((exitCode) => (code = exitCode));
  await waitFor(() => readySecret(running.stdout()) !== undefined || code !== undefined, 'listen to be ready', WAIT_MS);
  const secret = readySecret(running.stdout());
  if (secret === undefined) throw new Error(`listen ended with ${String(code)} before it was ready: ${running.stderr()}`);
  return { ...running, secret };
}

/** The environment of a developer's shell: the server, their key, and a config folder of the test's own. */
function developerEnv(t: TestContext, server: { baseUrl: string; key: string }): Record<string, string> {
  const configHome = mkdtempSync(path.join(tmpdir(), 'store-orders-listen-config-'));
  t.after(() => rmSync(configHome, { recursive: true, force: true }));
  return { STORE_ORDERS_URL: server.baseUrl, STORE_ORDERS_API_KEY: server.key, XDG_CONFIG_HOME: configHome };
}

describe('store-orders listen', () => {
  test('when an order is cancelled through the API while bin/store-orders listen runs, then the receiver gets the signed order.cancelled event byte for byte, the line shows its status, and Ctrl-C ends it with exit 0', TEST_OPTIONS, async (t) => {
    const server = await storeServer(t);
    const before = await server.h.services.orderOperations.createOrder({ accountId: server.accountId, petId: 7n, quantity: 1 });
    const receiver = await receiverAt(t);
    const { child, stdout, stderr, exited } = spawnBin(t, ['listen', '--forward-to', receiver.url], developerEnv(t, server));
    await waitFor(() => secretOf(stdout()) !== null || child.exitCode !== null, 'listen to be ready', WAIT_MS);
    const secret = secretOf(stdout())?.[1] ?? assert.fail(`not ready: ${stderr()}`);
    assert.match(stdout(), new RegExp(`^Forwarding every event of the key's account from ${server.baseUrl} to ${receiver.url}\\. Ctrl-C to stop\\.$`, 'm'));

    // int64 ids at the top of the range: the forwarded body keeps every digit.
    const order = await server.h.services.orderOperations.createOrder({ accountId: server.accountId, id: 9_223_372_036_854_775_807n, petId: 9_007_199_254_740_993n, quantity: 2 });
    await server.cancel(order.id);
    await waitFor(() => receiver.received.length >= 2 && /order\.cancelled.*->/.test(stdout()), 'both events forwarded', WAIT_MS);

    const events = receiver.received.map((request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { id: string; type: string; data: { order: { id: number } } });
    assert.deepEqual(events.map((event) => event.type), ['order.created', 'order.cancelled'], 'only what happened after the start, in order');
    for (const [index, request] of receiver.received.entries()) {
      assert.equal(request.body, await server.eventText(events[index]?.id ?? ''), 'the Event JSON as the feed serves it');
      assert.equal(request.headers['webhook-id'], events[index]?.id);
      assert.equal(request.headers['content-type'], 'application/json');
    }
    assert.match(receiver.received[1]?.body ?? '', /"id":9223372036854775807,"status":"cancelled"/);
    assert.ok(!receiver.received.some((request) => request.body.includes(`"id":${before.id},`)), 'the order created before the start is not forwarded');
    const cancelledId = events[1]?.id ?? '';
    assert.match(stdout(), new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z  order\\.cancelled  ${cancelledId}  -> 204  \\(\\d+ ms\\)$`, 'm'));
    assert.ok(!stdout().includes(server.key) && !stderr().includes(server.key), 'the API key is never printed');

    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running'), WAIT_MS))]);
    assert.equal(code, 0, stderr());
  });

  test('when --events names types, then only those are forwarded; --since replays what came before; the secret is the same on every run and kept private', TEST_OPTIONS, async (t) => {
    const server = await storeServer(t);
    const receiver = await receiverAt(t);
    const env = developerEnv(t, server);
    const cli = cliOn(t, env);
    const first = await startListen(t, cli, '--forward-to', receiver.url, '--events', 'order.cancelled');
    const order = await server.h.services.orderOperations.createOrder({ accountId: server.accountId, quantity: 1 });
    await server.cancel(order.id);
    await waitFor(() => receiver.received.length >= 1 && /order\.cancelled/.test(first.stdout()), 'the cancel forwarded', WAIT_MS);
    // Had order.created been forwarded too, it would have come first.
    assert.deepEqual(receiver.received.map((request) => (JSON.parse(request.body) as { type: string }).type), ['order.cancelled']);
    first.interrupt();
    assert.equal(await first.exited, 0);

    const file = path.join(env.XDG_CONFIG_HOME ?? '', 'store-orders', 'listen-secret');
    assert.equal(secretOf(first.stdout())?.[2], file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);

    const replay = await startListen(t, cli, '--forward-to', receiver.url, '--events', 'order.created', '--since', '1h', '--json');
    assert.equal(replay.secret, first.secret, 'the same secret across runs');
    await waitFor(() => receiver.received.length >= 2, 'the replayed order.created', WAIT_MS);
    const replayed = receiver.received[1];
    assert.equal((new Webhook(first.secret).verify(replayed?.body ?? '', (replayed?.headers ?? {}) as Record<string, string>) as { type: string }).type, 'order.created');
    await waitFor(() => replay.stdout().split('\n').length >= 3, 'the replayed event\'s record', WAIT_MS);
    const [ready, record] = replay.stdout().split('\n').map((line) => JSON.parse(line === '' ? 'null' : line) as Record<string, unknown> | null);
    assert.equal(ready?.ready, true);
    assert.equal(ready?.secret, first.secret);
    assert.deepEqual({ type: record?.type, status: record?.status }, { type: 'order.created', status: 204 });
    replay.interrupt();
    assert.equal(await replay.exited, 0);
  });

  test('when the receiver fails, does not answer in time or is not there, then each line says so and the loop goes on', TEST_OPTIONS, async (t) => {
    const server = await storeServer(t);
    const receiver = await receiverAt(t, (_request, index) => (index === 0 ? 500 : index === 1 ? 'hang' : 204));
    const cli = cliOn(t, { ...developerEnv(t, server), WEBHOOK_TIMEOUT_MS: '300' });
    const listen = await startListen(t, cli, '--forward-to', receiver.url);
    for (let n = 0; n < 3; n += 1) await server.h.services.orderOperations.createOrder({ accountId: server.accountId, quantity: 1 });
    await waitFor(() => (listen.stdout().match(/ -> /g) ?? []).length >= 3, 'three lines', WAIT_MS);
    const lines = listen.stdout().split('\n').filter((line) => line.includes(' -> '));
    assert.match(lines[0] ?? '', / -> 500\s{2}\(\d+ ms\)$/);
    assert.match(lines[1] ?? '', / -> failed: The local receiver did not answer in time\.\s{2}\(\d+ ms\)$/);
    assert.match(lines[2] ?? '', / -> 204\s{2}\(\d+ ms\)$/);
    assert.equal(receiver.received.length, 3, 'one attempt per event');
    listen.interrupt();
    assert.equal(await listen.exited, 0);

    const down = await startListen(t, cli, '--forward-to', `http://127.0.0.1:${await closedPort()}/webhooks`);
    await server.h.services.orderOperations.createOrder({ accountId: server.accountId, quantity: 1 });
    await waitFor(() => / -> failed: The local receiver could not be reached \(ECONNREFUSED\)\./.test(down.stdout()), 'the refused connection reported', WAIT_MS);
    down.interrupt();
    assert.equal(await down.exited, 0);
  });

  test('when the key lacks events:read, is not a key, or the server is not there, then listen exits 1 saying which; a mistyped event type or no key exits 2', TEST_OPTIONS, async (t) => {
    const server = await storeServer(t, ['orders:read', 'orders:write']);
    const cli = cliOn(t, developerEnv(t, server));
    const forward = ['--forward-to', 'http://127.0.0.1:9/webhooks'];

    const scopeless = await cli.run('listen', ...forward);
    assert.equal(scopeless.code, 1);
    assert.match(scopeless.stderr, /^store-orders: the API key lacks the scope events:read, which listen needs to read the events feed \(GET \/v2\/events\)\./);

    const wrongKey = await cli.run('listen', ...forward, '--api-key', 'so_prod_notakey');
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, new RegExp(`^store-orders: the server at ${server.baseUrl} refused the API key: .*\\(HTTP 401, \\w+\\) Check STORE_ORDERS_API_KEY \\(or --api-key\\)\\.\\n$`));

    const port = await closedPort();
    const nowhere = await cli.run('listen', ...forward, '--base-url', `http://127.0.0.1:${port}`, '--json');
    assert.equal(nowhere.code, 1);
    assert.match(nowhere.stderr, new RegExp(`^store-orders: cannot reach the server at http://127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.* Is it running\\?`));
    assert.equal((JSON.parse(nowhere.stdout) as { code: string }).code, 'command_failed');

    const typo = await cli.run('listen', ...forward, '--events', 'order.cancelled,order.canceled');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown event type "order\.canceled"; known: order\.created, order\.shipped, order\.cancelled/);

    // An empty variable counts as unset.
    const keyless = cliOn(t, { ...developerEnv(t, server), STORE_ORDERS_API_KEY: '' });
    const noKey = await keyless.run('listen', ...forward);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /listen needs your API key: set STORE_ORDERS_API_KEY/);
    for (const output of [scopeless, wrongKey, nowhere, typo].flatMap((result) => [result.stdout, result.stderr])) assert.ok(!output.includes(server.key));
  });

  test('when a store developer registers a webhook endpoint at http://localhost, then the refusal points to store-orders listen and to WEBHOOK_ALLOWED_NETWORKS', TEST_OPTIONS, async (t) => {
    const server = await storeServer(t);
    for (const url of ['http://localhost:8080/webhooks', 'https://127.0.0.1:8443/webhooks']) {
      const response = await fetch(`${server.baseUrl}/v2/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      assert.equal(response.status, 400, url);
      const { message } = (await response.json()) as { message: string };
      assert.match(message, /^url is refused: .*run `store-orders listen --forward-to <your URL>` with your API key instead: it needs no endpoint/, url);
      assert.match(message, /WEBHOOK_ALLOWED_NETWORKS/, url);
    }
  });
});
