/**
 * OpenTelemetry tracing end to end: a spawned server exports its spans over
 * OTLP/HTTP (JSON) to a receiver in this process, and the spans of one cancel
 * (with an incoming `traceparent`) form one tree: the HTTP server span, the
 * group commit, the database's spans; the request's log lines carry its
 * trace id. Without the OTEL variables nothing is exported and no line has one.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, waitFor } from '../support/process.js';
import { httpBackends } from '../support/storage.js';
import { createTenant, startReceiver as startWebhook } from '../support/quickstart.js';
import { testServices } from '../support/container.js';
import { databaseUrlOf } from '../metrics/scrape.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

const SERVER_KIND = 2;

/** A collector's OTLP/HTTP endpoint, enough of it: every POST /v1/traces (JSON) is kept. */
async function startReceiver(t: TestContext): Promise<{ url: string; spans: OtlpSpan[]; serviceNames: Set<string> }> {
  const spans: OtlpSpan[] = [];
  const serviceNames = new Set<string>();
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      const exported = JSON.parse(body) as OtlpExport;
      for (const resource of exported.resourceSpans) {
        for (const attribute of resource.resource.attributes) if (attribute.key === 'service.name') serviceNames.add(String(attribute.value.stringValue));
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, serviceNames };
}

function attribute(span: OtlpSpan, key: string): string | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : String(value.stringValue ?? value.intValue);
}

/** Whether `ancestor` is `span`'s parent, or its parent's, and so on. */
function descends(span: OtlpSpan, ancestor: OtlpSpan, all: readonly OtlpSpan[]): boolean {
  for (let parent = span.parentSpanId; parent !== undefined && parent !== ''; ) {
    if (parent === ancestor.spanId) return true;
    parent = all.find((s) => s.spanId === parent)?.parentSpanId;
  }
  return false;
}

const hex = (bytes: number) => Array.from({ length: bytes }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('');

describe('tracing (OpenTelemetry)', () => {
  for (const backend of httpBackends()) {
    test(`when a cancel arrives with a traceparent (${backend.name}), then its server span, group commit and database spans form one trace, and its log lines carry the trace id`, async (t) => {
      const receiver = await startReceiver(t);
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account, auth } = await createTenant(services, 'Traced');
      await services.orderOperations.createOrder({ accountId: account.id, id: 42n, quantity: 1 });
      const server = await startServer(t, {
        DATABASE_URL: databaseUrlOf(config),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'store-orders-under-test',
        // The SDK's own variable: export within 50 ms rather than 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });

      const traceId = hex(16);
      const callerSpanId = hex(8);
      const cancel = await fetch(`${server.baseUrl}/v1/store/orders/42`, { method: 'DELETE', headers: { ...auth, traceparent: `00-${traceId}-${callerSpanId}-01` } });
      assert.equal(cancel.status, 204);
      const requestId = cancel.headers.get('x-request-id');

      const deadline = Date.now() + 30_000;
      const ours = () => receiver.spans.filter((span) => span.traceId === traceId);
      while (!ours().some((span) => span.name === 'group commit') || !ours().some((span) => span.kind === SERVER_KIND)) {
        assert.ok(Date.now() < deadline, `the cancel's spans did not arrive: ${JSON.stringify(receiver.spans.map((s) => s.name))}`);
        await sleep(50);
      }
      await sleep(200);
      const spans = ours();
      assert.deepEqual([...receiver.serviceNames], ['store-orders-under-test']);

      const serverSpan = spans.find((span) => span.kind === SERVER_KIND);
      assert.ok(serverSpan);
      assert.equal(serverSpan.name, 'DELETE /v1/store/orders/:orderId');
      assert.equal(serverSpan.parentSpanId, callerSpanId, 'the incoming traceparent is the server span parent');
      assert.equal(attribute(serverSpan, 'http.route'), '/v1/store/orders/:orderId');
      assert.equal(attribute(serverSpan, 'http.response.status_code'), '204');

      const groupCommit = spans.find((span) => span.name === 'group commit');
      assert.ok(groupCommit);
      assert.ok(descends(groupCommit, serverSpan, spans), 'the group commit is within the request');
      assert.equal(attribute(groupCommit, 'store.group_commit.size'), '1');
      assert.equal(attribute(groupCommit, 'db.system.name'), backend.name === 'sqlite' ? 'sqlite' : 'postgresql');

      if (backend.name !== 'sqlite') {
        // The pg instrumentation: the transaction's statements, within the group commit.
        const queries = spans.filter((span) => attribute(span, 'db.system') === 'postgresql' || attribute(span, 'db.system.name') === 'postgresql').filter((span) => span !== groupCommit);
        assert.ok(queries.length >= 1, `database spans: ${JSON.stringify(spans.map((s) => s.name))}`);
        const update = queries.find((span) => /UPDATE|update/.test(`${span.name} ${attribute(span, 'db.statement') ?? attribute(span, 'db.query.text') ?? ''}`));
        assert.ok(update, `an UPDATE span among ${JSON.stringify(queries.map((s) => s.name))}`);
        assert.ok(descends(update, groupCommit, spans), 'the UPDATE runs within the group commit');
      }

      const lines = server
        .stdout()
        .split('\n')
        .filter((line) => line.includes(`"requestId":"${requestId}"`))
        .map((line) => JSON.parse(line) as { msg: string; trace_id?: string; span_id?: string });
      assert.deepEqual(
        lines.map((line) => [line.msg, line.trace_id]),
        [['request completed', traceId]],
      );
    });
  }

  test('when a message is delivered to its webhook, then the request carries the traceparent of its delivery span', async (t) => {
    const receiver = await startReceiver(t);
    const webhook = await startWebhook(t, () => 200);
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { config, storage } = await backend.freshDatabase(t);
    const { auth } = await createTenant(testServices(storage), 'Messages');
    const server = await startServer(t, {
      DATABASE_URL: databaseUrlOf(config),
      MESSAGES_WEBHOOK_URL: webhook.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // A delivery starts its own trace: every one is sampled here, not one in ten.
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
    assert.ok(server.quickstartUrl);
    const queued = await fetch(`${server.quickstartUrl}/messages`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) });
    assert.equal(queued.status, 202);
    const [delivered] = await webhook.next(1);
    assert.ok(delivered);
    const traceparent = String(delivered.headers.traceparent);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent);
    assert.ok(match, `a W3C traceparent: ${traceparent}`);
    await waitFor(() => receiver.spans.some((span) => span.name === 'message delivery'), 'the delivery span');
    const span = receiver.spans.find((s) => s.name === 'message delivery');
    assert.deepEqual([span?.traceId, span?.spanId], [match[1], match[2]]);
  });

  test('when an order change is delivered to a webhook endpoint, then the request carries the traceparent of its delivery span', async (t) => {
    const receiver = await startReceiver(t);
    const webhook = await startWebhook(t, () => 200);
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { config, storage } = await backend.freshDatabase(t);
    const services = testServices(storage);
    const { account, auth } = await createTenant(services, 'Webhooks');
    const order = await services.orderOperations.createOrder({ accountId: account.id });
    const server = await startServer(t, {
      DATABASE_URL: databaseUrlOf(config),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      // A delivery starts its own trace: every one is sampled here, not one in ten.
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
    const json = { ...auth, 'content-type': 'application/json' };
    const created = await fetch(`${server.baseUrl}/v2/webhook-endpoints`, { method: 'POST', headers: json, body: JSON.stringify({ url: webhook.url, eventTypes: ['order.cancelled'] }) });
    // The Error record of any other answer (a 503 overloaded on a starved machine, say), for whoever reads a failure.
    assert.equal(created.status, 201, await created.clone().text());
    assert.equal((await fetch(`${server.baseUrl}/v1/store/orders/${order.id}`, { method: 'DELETE', headers: auth })).status, 204);
    const [delivered] = await webhook.next(1);
    assert.ok(delivered);
    assert.match(delivered.body, /"type":"order\.cancelled"/);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(delivered.headers.traceparent));
    assert.ok(match, `a W3C traceparent: ${String(delivered.headers.traceparent)}`);
    await waitFor(() => receiver.spans.some((span) => span.name === 'webhook delivery'), 'the delivery span');
    const span = receiver.spans.find((s) => s.name === 'webhook delivery');
    assert.deepEqual([span?.traceId, span?.spanId], [match[1], match[2]]);
  });

  test('when listings arrive with the ratio sampler at 0.5, then about half start a trace, every one with a sampled traceparent is traced and none with an unsampled one', async (t) => {
    const receiver = await startReceiver(t);
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { config, storage } = await backend.freshDatabase(t);
    const { auth } = await createTenant(testServices(storage), 'Sampled');
    const server = await startServer(t, {
      DATABASE_URL: databaseUrlOf(config),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
      RATE_LIMIT_REQUESTS: '0',
    });
    const list = async (traceparent?: string) => {
      const reply = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { ...auth, ...(traceparent === undefined ? {} : { traceparent }) } });
      assert.equal(reply.status, 200);
      await reply.arrayBuffer();
    };
    // The first request fills the listing cache; the rest may be answered in front of Fastify (the fast lane).
    for (let i = 0; i < 200; i++) await list();
    const sampled = Array.from({ length: 20 }, () => hex(16));
    const unsampled = Array.from({ length: 20 }, () => hex(16));
    for (const traceId of sampled) await list(`00-${traceId}-${hex(8)}-01`);
    for (const traceId of unsampled) await list(`00-${traceId}-${hex(8)}-00`);
    const listings = () => receiver.spans.filter((span) => span.kind === SERVER_KIND && attribute(span, 'http.route') === '/v1/store/orders');
    await waitFor(() => sampled.every((traceId) => listings().some((span) => span.traceId === traceId)), 'the sampled callers\' spans');
    await sleep(300);
    const traced = new Set(listings().map((span) => span.traceId));
    assert.equal(traced.size, listings().length, 'one server span per traced request');
    assert.ok(unsampled.every((traceId) => !traced.has(traceId)), 'a caller that did not sample is not traced');
    // 200 fair coins: 100 expected, 7 standard deviations either side allowed.
    const started = traced.size - sampled.length;
    assert.ok(started >= 50 && started <= 150, `${started} of 200 new traces sampled at 0.5`);
    // The log line of a traced request carries its trace id; the others carry none.
    const lines = server.stdout().split('\n').filter((line) => line.includes('"request completed"'));
    assert.equal(lines.filter((line) => line.includes('trace_id')).length, traced.size);
  });

  test('when no OTEL variable is set, then log lines carry no trace id', async (t) => {
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { config, storage } = await backend.freshDatabase(t);
    const { auth } = await createTenant(testServices(storage), 'Untraced');
    const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) });
    const reply = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { ...auth, traceparent: `00-${hex(16)}-${hex(8)}-01` } });
    assert.equal(reply.status, 200);
    await reply.arrayBuffer();
    await waitFor(() => server.stdout().includes('request completed'), 'the request log lines');
    assert.doesNotMatch(server.stdout(), /trace_id/);
  });
});
