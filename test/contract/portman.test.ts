import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { ROOT, runBin, startServer } from '../support/process.js';

const exec = promisify(execFile);

/** The part of newman's JSON report this test reads. */
interface NewmanReport {
  run: {
    stats: { requests: { total: number; failed: number }; assertions: { total: number; failed: number } };
    executions: { item: { name: string }; response?: { code: number }; assertions?: { assertion: string; error?: { message: string } }[] }[];
    failures: { source?: { name?: string }; error: { test?: string; message: string } }[];
  };
}

async function cli(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runBin(args, env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/**
 * A fresh SQLite store per run, so the fixtures the Portman configs point at
 * (order 10 pending, order 11 shipped, pet 7; for v2 also order 12, cancelled
 * once the server runs) are always in the same state.
 */
async function seedStore(t: TestContext, dir: string, { cancelledOrder = false } = {}): Promise<{ env: Record<string, string>; key: string }> {
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '0' };
  await cli(['migrate'], env);
  const account = JSON.parse(await cli(['accounts', 'create', '--name', 'Portman Pets', '--json'], env)) as { id: number };
  assert.equal(account.id, 1);
  const { key } = JSON.parse(await cli(['keys', 'create', '--account', '1', '--json'], env)) as { key: string };
  await cli(['orders', 'create', '--account', '1', '--pet-id', '7', '--quantity', '1', '--id', '10'], env);
  await cli(['orders', 'create', '--account', '1', '--pet-id', '7', '--quantity', '2', '--id', '11'], env);
  await cli(['orders', 'ship', '11'], env);
  if (cancelledOrder) await cli(['orders', 'create', '--account', '1', '--pet-id', '7', '--quantity', '3', '--id', '12'], env);
  await cli(['pets', 'create', '--account', '1', '--name', 'Rex', '--id', '7'], env);
  t.diagnostic(`fixtures in ${dir}`);
  return { env, key };
}

/**
 * Portman turns `document` into contract and variation tests (configured by
 * `config`), newman runs them against `baseUrl`; returns newman's report and
 * its console output.
 */
async function runPortman(
  t: TestContext,
  { dir, document, config, baseUrl, key }: { dir: string; document: string; config: string; baseUrl: string; key: string },
): Promise<{ run: NewmanReport['run']; stdout: string }> {
  // Portman writes ./tmp/ under its working directory, so it runs in the
  // scratch folder; --local and no --syncPostman keep it off the network.
  const collection = path.join(dir, 'collection.json');
  await exec(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/@apideck/portman/bin/portman'),
      '--local', path.join(ROOT, document),
      '--portmanConfigFile', path.join(ROOT, config),
      '--baseUrl', '{{baseUrl}}',
      '--output', collection,
      '--syncPostman', 'false',
      '--runNewman', 'false',
      '--logAssignVariables', 'false',
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );

  // The key goes in an environment file rather than on a command line.
  const environment = path.join(dir, 'environment.json');
  writeFileSync(
    environment,
    JSON.stringify({
      name: 'portman-test',
      values: [
        { key: 'baseUrl', value: baseUrl, enabled: true },
        { key: 'bearerToken', value: key, enabled: true },
      ],
    }),
  );
  const reportFile = path.join(dir, 'newman.json');
  const newman = await exec(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/newman/bin/newman.js'), 'run', collection,
      '--environment', environment,
      '--reporters', 'cli,json', '--reporter-json-export', reportFile,
      '--color', 'off', '--disable-unicode', '--timeout-request', '10000',
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
    // Exit code 1 means "assertions failed": the report below says which.
    if (error.code === 1) return { stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
    throw new Error(`newman did not run: ${error.stderr ?? String(error)}`);
  });
  const { run } = JSON.parse(readFileSync(reportFile, 'utf8')) as NewmanReport;

  const failures = run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.test ?? ''} - ${f.error.message}`);
  if (failures.length > 0) for (const line of newman.stdout.split('\n')) t.diagnostic(line);
  assert.deepEqual(failures, []);
  t.diagnostic(`${run.stats.requests.total} requests, ${run.stats.assertions.total} assertions`);
  assert.equal(run.stats.requests.failed, 0);
  for (const execution of run.executions) {
    assert.ok((execution.assertions ?? []).length >= 2, `${execution.item.name} carries contract assertions`);
  }
  assert.ok(!newman.stdout.includes(key), 'the key must not reach the newman output');
  return { run, stdout: newman.stdout };
}

const statusesOf = (run: NewmanReport['run']) => run.executions.map((e) => `${e.item.name} -> ${String(e.response?.code)}`);

test('when Portman turns openapi.json into contract and variation tests and newman runs them against a live server, then every assertion passes', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-portman-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { env, key } = await seedStore(t, dir);
  const server = await startServer(t, env);

  const { run } = await runPortman(t, { dir, document: 'openapi/openapi.json', config: 'portman/portman-config.json', baseUrl: `${server.baseUrl}/v1`, key });

  // The run really exercised the API: every main and variation request got an answer and was checked.
  assert.deepEqual(statusesOf(run), [
    'List every order -> 200',
    'Cancel an order -> 204',
    'Find a pet by id (deprecated) -> 200',
    'List every order[WithoutAuthorization] -> 401',
    'List every order[WithUnknownBearerKey] -> 401',
    'Cancel an order[WithoutAuthorization] -> 401',
    'Cancel an order[WithUnknownBearerKey] -> 401',
    'Cancel an order[MalformedOrderId] -> 400',
    'Cancel an order[OrderIdWithLeadingZero] -> 400',
    'Cancel an order[UnknownOrder] -> 404',
    'Cancel an order[ShippedOrder] -> 409',
    'Find a pet by id (deprecated)[WithoutAuthorization] -> 401',
    'Find a pet by id (deprecated)[WithUnknownBearerKey] -> 401',
    'Find a pet by id (deprecated)[MalformedPetId] -> 400',
    'Find a pet by id (deprecated)[UnknownPet] -> 404',
  ]);
});

test('when Portman turns openapi-v2.json into contract and variation tests and newman runs them against a live server, then every assertion passes', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-portman-v2-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { env, key } = await seedStore(t, dir, { cancelledOrder: true });
  // The webhook endpoint it creates points at loopback (nothing listens: no delivery has to succeed).
  const server = await startServer(t, { ...env, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  const cancelled = await fetch(`${server.baseUrl}/v2/store/orders/12`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
  assert.equal(cancelled.status, 204);

  const { run } = await runPortman(t, { dir, document: 'openapi/openapi-v2.json', config: 'portman/portman-v2-config.json', baseUrl: `${server.baseUrl}/v2`, key });

  assert.deepEqual(statusesOf(run), [
    'List orders, filtered and paged (beta) -> 200',
    'Get one order (beta) -> 200',
    'Cancel an order (beta) -> 204',
    'Place an order (beta) -> 201',
    'List the audit trail (beta) -> 200',
    'List events, oldest first (beta) -> 200',
    'Get one event (beta) -> 200',
    'Create a webhook endpoint (beta) -> 201',
    'List webhook endpoints (beta) -> 200',
    'Get a webhook endpoint (beta) -> 200',
    'Update a webhook endpoint (beta) -> 200',
    'Rotate the signing secret (beta) -> 200',
    'Send a test event (beta) -> 200',
    'Deliver an event again (beta) -> 202',
    "List an endpoint's deliveries (beta) -> 200",
    'Get a delivery with every attempt (beta) -> 200',
    'Recover failed deliveries (beta) -> 202',
    'Delete a webhook endpoint (beta) -> 204',
    'List request logs, newest first (beta) -> 200',
    'List orders, filtered and paged (beta)[WithoutAuthorization] -> 401',
    'List orders, filtered and paged (beta)[WithUnknownBearerKey] -> 401',
    'Get one order (beta)[WithoutAuthorization] -> 401',
    'Get one order (beta)[WithUnknownBearerKey] -> 401',
    'Cancel an order (beta)[WithoutAuthorization] -> 401',
    'Cancel an order (beta)[WithUnknownBearerKey] -> 401',
    'Place an order (beta)[WithoutAuthorization] -> 401',
    'Place an order (beta)[WithUnknownBearerKey] -> 401',
    'List orders, filtered and paged (beta)[NextPage] -> 200',
    'List orders, filtered and paged (beta)[NotModified] -> 304',
    'List orders, filtered and paged (beta)[LimitOutOfRange] -> 400',
    'List orders, filtered and paged (beta)[ForgedCursor] -> 400',
    'Get one order (beta)[MalformedOrderId] -> 400',
    'Get one order (beta)[UnknownOrder] -> 404',
    'Cancel an order (beta)[OrderIdWithLeadingZero] -> 400',
    'Cancel an order (beta)[UnknownOrder] -> 404',
    'Cancel an order (beta)[ShippedOrder] -> 409',
    'Cancel an order (beta)[CancelledOrder] -> 409',
    'List the audit trail (beta)[WithoutAuthorization] -> 401',
    'List the audit trail (beta)[WithUnknownBearerKey] -> 401',
    'List the audit trail (beta)[LimitOutOfRange] -> 400',
    'List the audit trail (beta)[ForgedCursor] -> 400',
    'List events, oldest first (beta)[WithoutAuthorization] -> 401',
    'List events, oldest first (beta)[WithUnknownBearerKey] -> 401',
    'Get one event (beta)[WithoutAuthorization] -> 401',
    'Get one event (beta)[WithUnknownBearerKey] -> 401',
    'List events, oldest first (beta)[NextPage] -> 200',
    'List events, oldest first (beta)[LimitOutOfRange] -> 400',
    'List events, oldest first (beta)[OrdersCursor] -> 400',
    'Get one event (beta)[UnknownEvent] -> 404',
    'Create a webhook endpoint (beta)[WithoutAuthorization] -> 401',
    'Create a webhook endpoint (beta)[WithUnknownBearerKey] -> 401',
    'List webhook endpoints (beta)[WithoutAuthorization] -> 401',
    'List webhook endpoints (beta)[WithUnknownBearerKey] -> 401',
    'Get a webhook endpoint (beta)[WithoutAuthorization] -> 401',
    'Get a webhook endpoint (beta)[WithUnknownBearerKey] -> 401',
    'Update a webhook endpoint (beta)[WithoutAuthorization] -> 401',
    'Update a webhook endpoint (beta)[WithUnknownBearerKey] -> 401',
    'Rotate the signing secret (beta)[WithoutAuthorization] -> 401',
    'Rotate the signing secret (beta)[WithUnknownBearerKey] -> 401',
    'Send a test event (beta)[WithoutAuthorization] -> 401',
    'Send a test event (beta)[WithUnknownBearerKey] -> 401',
    'Deliver an event again (beta)[WithoutAuthorization] -> 401',
    'Deliver an event again (beta)[WithUnknownBearerKey] -> 401',
    "List an endpoint's deliveries (beta)[WithoutAuthorization] -> 401",
    "List an endpoint's deliveries (beta)[WithUnknownBearerKey] -> 401",
    'Get a delivery with every attempt (beta)[WithoutAuthorization] -> 401',
    'Get a delivery with every attempt (beta)[WithUnknownBearerKey] -> 401',
    'Recover failed deliveries (beta)[WithoutAuthorization] -> 401',
    'Recover failed deliveries (beta)[WithUnknownBearerKey] -> 401',
    'Delete a webhook endpoint (beta)[WithoutAuthorization] -> 401',
    'Delete a webhook endpoint (beta)[WithUnknownBearerKey] -> 401',
    'Create a webhook endpoint (beta)[MetadataUrl] -> 400',
    'Get a webhook endpoint (beta)[MalformedEndpointId] -> 400',
    'Get a webhook endpoint (beta)[UnknownEndpoint] -> 404',
    'List request logs, newest first (beta)[WithoutAuthorization] -> 401',
    'List request logs, newest first (beta)[WithUnknownBearerKey] -> 401',
    'List request logs, newest first (beta)[MalformedStatus] -> 400',
    'List request logs, newest first (beta)[ForgedCursor] -> 400',
  ]);
});
