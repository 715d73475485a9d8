import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { DEFAULT_LIMITS } from '../../src/config/limits.js';

describe('configuration', () => {
  test('when the environment is empty, then the documented defaults apply', () => {
    const config = loadConfig({}, '/srv/app');
    assert.deepEqual(config, {
      host: '127.0.0.1',
      port: 3000,
      logLevel: 'info',
      environment: 'production',
      shutdownGraceMs: 10000,
      database: { kind: 'sqlite', path: path.resolve('/srv/app', 'data/store.db'), synchronous: 'full' },
      cursorSecrets: [],
      quickstart: { port: 3001, publicUrl: 'https://quickstart.store.example.com' },
      metrics: { host: '127.0.0.1', port: 9464 },
      messages: { webhookTimeoutMs: 10000, retryBaseMs: 1000, retryMaxMs: 300000, maxAttempts: 10, pollIntervalMs: 1000 },
      // Spelled out in test/config/limits.test.ts.
      limits: DEFAULT_LIMITS,
      tracing: null,
      // No publicBaseUrl or stagingBaseUrl: the documents name the address the server listens on (issue 19 #5).
      pets: { deprecatedAt: new Date('2026-07-01T00:00:00Z'), sunsetAt: new Date('2027-07-01T00:00:00Z') },
      // No publicUrl: the portal's origin is http://localhost:<port> on a loopback HOST (test/config/portal-config.test.ts).
      portal: {
        port: 3002,
        signUp: 'open',
        requireVerifiedEmail: false,
        requireTwoStep: false,
        session: { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 },
        throttle: { perEmail: 5, perAddress: 30, windowMs: 15 * 60_000 },
      },
      audit: { retentionDays: 90, pruneIntervalMs: 3_600_000 },
      webhooks: {
        allowHttp: false,
        allowedNetworks: [],
        timeoutMs: 15000,
        // 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
        retryScheduleMs: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
        pollIntervalMs: 250,
        maxEndpointsPerAccount: 20,
        maxInFlight: 256,
        maxInFlightPerEndpoint: 64,
        claimMarginMs: 60000,
      },
      events: { retentionDays: 30, pruneIntervalMs: 3_600_000 },
      requestLogs: { enabled: true, retentionDays: 14, pruneIntervalMs: 3_600_000, flushMs: 1000 },
      // No SMTP_URL: mail is kept in the local outbox (test/config/mail-config.test.ts). 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h.
      mail: { smtp: null, from: 'Store Orders <no-reply@localhost>', timeoutMs: 30000, retryScheduleMs: [30000, 120000, 600000, 1800000, 3600000, 7200000, 14400000, 28800000], pollIntervalMs: 1000 },
    });
    assert.ok(Object.isFrozen(config));
  });

  test('when values are set, then they are parsed', () => {
    const config = loadConfig(
      { PORT: '0', HOST: '0.0.0.0', DATABASE_URL: 'sqlite:/var/lib/store.db', LOG_LEVEL: 'warn', STORE_ENVIRONMENT: 'staging', SHUTDOWN_GRACE_MS: '500' },
      '/srv/app',
    );
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.database, { kind: 'sqlite', path: '/var/lib/store.db', synchronous: 'full' });
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.environment, 'staging');
    assert.equal(config.shutdownGraceMs, 500);
  });

  test('when the webhook variables are set, then they are parsed; a bad schedule or network is refused without echoing the secrets key', () => {
    const config = loadConfig({
      WEBHOOK_ALLOW_HTTP: 'TRUE',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, fd00::/8,10.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '500ms,2s,1m',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_SECRETS_KEY: 'k'.repeat(40),
    });
    assert.equal(config.webhooks.allowHttp, true);
    assert.deepEqual(config.webhooks.allowedNetworks, ['127.0.0.0/8', 'fd00::/8', '10.0.0.1']);
    assert.deepEqual(config.webhooks.retryScheduleMs, [500, 2000, 60000]);
    assert.equal(config.webhooks.timeoutMs, 2000);
    assert.equal(config.webhooks.secretsKey, 'k'.repeat(40));
    assert.throws(
      () => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,soon', WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33', WEBHOOK_SECRETS_KEY: 'short secret' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /WEBHOOK_RETRY_SCHEDULE/);
        assert.match(error.message, /WEBHOOK_ALLOWED_NETWORKS/);
        assert.match(error.message, /WEBHOOK_SECRETS_KEY/);
        assert.ok(!error.message.includes('short secret'));
        return true;
      },
    );
  });

  test('when several values are invalid, then one ConfigError names every problem and never echoes DATABASE_URL', () => {
    assert.throws(
      () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', STORE_ENVIRONMENT: 'prod', DATABASE_URL: 'mysql://user:hunter2@db/x', HOST: 'a b' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 5);
        assert.match(error.message, /PORT/);
        assert.match(error.message, /LOG_LEVEL/);
        assert.match(error.message, /STORE_ENVIRONMENT/);
        assert.match(error.message, /HOST/);
        assert.match(error.message, /DATABASE_URL scheme "mysql:" is not supported/);
        assert.ok(!error.message.includes('hunter2'));
        return true;
      },
    );
    for (const PORT of ['abc', '-1', '1.5', '3000x']) assert.throws(() => loadConfig({ PORT }), ConfigError, PORT);
    for (const DATABASE_URL of ['sqlite:', 'sqlite::memory:', 'store.db']) assert.throws(() => loadConfig({ DATABASE_URL }), ConfigError, DATABASE_URL);
  });
});

describe('configuration edge cases', () => {
  test('when levels and environments are written in capitals, then they are accepted', () => {
    const config = loadConfig({ LOG_LEVEL: 'INFO', STORE_ENVIRONMENT: 'Staging' });
    assert.equal(config.logLevel, 'info');
    assert.equal(config.environment, 'staging');
  });

  test('when HOST is an impossible address, then it is refused at load rather than at listen', () => {
    for (const HOST of ['999.999.999.999', '1.2.3', 'a b', '-bad.example', 'under_score']) {
      assert.throws(() => loadConfig({ HOST }), ConfigError, HOST);
    }
    for (const HOST of ['::1', '0.0.0.0', 'localhost', 'api.example.com', '10.0.0.7']) {
      assert.equal(loadConfig({ HOST }).host, HOST);
    }
  });

  test('when DATABASE_URL is sqlite://name, then it is refused; sqlite:///abs and sqlite:rel are files', () => {
    assert.throws(() => loadConfig({ DATABASE_URL: 'sqlite://data/x.db' }), /ambiguous/);
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:///var/x.db' }).database, { kind: 'sqlite', path: '/var/x.db', synchronous: 'full' });
    assert.equal((loadConfig({ DATABASE_URL: 'sqlite:rel/x.db' }, '/srv').database as { path: string }).path, '/srv/rel/x.db');
  });

  test('when PUBLIC_BASE_URL or STAGING_BASE_URL does not end in the version prefix /v1, then it is refused; a trailing slash is dropped', () => {
    for (const url of ['https://api.shop.test', 'https://api.shop.test/v2', 'https://api.shop.test/apiv1', 'https://api.shop.test/v1/orders']) {
      assert.throws(
        () => loadConfig({ PUBLIC_BASE_URL: url, STAGING_BASE_URL: url }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.some((p) => p.startsWith('PUBLIC_BASE_URL must be an absolute http(s) URL ending in /v1')) &&
          error.problems.some((p) => p.startsWith('STAGING_BASE_URL must be an absolute http(s) URL ending in /v1')),
        url,
      );
    }
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://api.shop.test/orders/v1/', STAGING_BASE_URL: 'http://staging.shop.test/v1' });
    assert.equal(config.publicBaseUrl, 'https://api.shop.test/orders/v1');
    assert.equal(config.stagingBaseUrl, 'http://staging.shop.test/v1');
  });
});

describe('configuration: tracing (the OpenTelemetry variables)', () => {
  const tracing = (env: Record<string, string>) => loadConfig(env, '/srv/app').tracing;

  test('when no endpoint and no exporter is set, then tracing is off', () => {
    assert.equal(tracing({ OTEL_SERVICE_NAME: 'shop' }), null);
  });

  test('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then spans go to its /v1/traces, named by OTEL_SERVICE_NAME', () => {
    const sampler = { name: 'parentbased_traceidratio', ratio: 0.1 };
    assert.deepEqual(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }), { tracesUrl: 'http://collector:4318/v1/traces', serviceName: 'store-orders', sampler });
    assert.deepEqual(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp', OTEL_SERVICE_NAME: 'shop' }), {
      tracesUrl: 'https://c.example/otlp/v1/traces',
      serviceName: 'shop',
      sampler,
    });
  });

  test('when OTEL_TRACES_SAMPLER and its argument are set, then they choose the sampler; a name or share outside the specification is refused', () => {
    assert.deepEqual(tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_always_on' })?.sampler, { name: 'parentbased_always_on', ratio: 0.1 });
    assert.deepEqual(tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })?.sampler, { name: 'traceidratio', ratio: 0.25 });
    for (const env of [{ OTEL_TRACES_SAMPLER: 'jaeger_remote' }, { OTEL_TRACES_SAMPLER_ARG: '1.5' }]) {
      assert.throws(() => loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', ...env }), (error: unknown) => error instanceof ConfigError && error.problems[0]?.startsWith(Object.keys(env)[0] ?? '') === true);
    }
  });

  test('when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, then it is used as is; OTEL_TRACES_EXPORTER=otlp alone uses the default endpoint', () => {
    assert.equal(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' })?.tracesUrl, 'http://b:9999/traces');
    assert.equal(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })?.tracesUrl, 'http://localhost:4318/v1/traces');
  });

  test('when OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, then tracing is off whatever endpoint is set', () => {
    assert.equal(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }), null);
    assert.equal(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'TRUE' }), null);
  });

  test('when an exporter, protocol or endpoint cannot be served, then the start is refused naming it', () => {
    assert.throws(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.deepEqual(
        error.problems.map((problem) => problem.split(' ')[0]),
        ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_PROTOCOL'],
      );
      return true;
    });
  });
});

describe('configuration immutability', () => {
  test('when the configuration is loaded, then every nested object and list is frozen, and so are the default limits', () => {
    const config = loadConfig({ CURSOR_SECRET: 'c'.repeat(40), TRUST_PROXY: 'loopback' }, '/srv/app');
    for (const value of [config.database, config.cursorSecrets, config.quickstart, config.messages, config.limits, config.limits.rateLimit, config.limits.loadShedding, config.limits.trustProxy, config.pets]) {
      assert.ok(Object.isFrozen(value));
    }
    assert.ok(Object.isFrozen(DEFAULT_LIMITS) && Object.isFrozen(DEFAULT_LIMITS.trustProxy));
    assert.deepEqual(loadConfig({}, '/srv/app').limits.trustProxy, [], 'a second load is not affected by the first');
  });
});
