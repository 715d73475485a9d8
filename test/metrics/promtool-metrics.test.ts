/**
 * `promtool check metrics` (Prometheus' own linter for the exposition) on a
 * real scrape: it refused prom-client's default `nodejs_active_*_total`
 * gauges (a `_total` suffix is for counters). Skipped without promtool,
 * except under CI, which installs it (Debian package prometheus).
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { describe, test, type TestContext } from 'node:test';
import { startServer } from '../support/process.js';
import { createTenant } from '../support/quickstart.js';
import { testServices } from '../support/container.js';
import { storageBackends } from '../support/storage.js';
import { databaseUrlOf } from './scrape.js';

async function promtoolOrSkip(t: TestContext): Promise<boolean> {
  const found = await new Promise<boolean>((resolve) => execFile('promtool', ['--version'], (error) => resolve(error === null)));
  if (!found) {
    assert.ok(process.env.CI === undefined, 'CI installs promtool (Debian package prometheus, .ci/run): it must be there');
    t.skip('promtool is absent (apt-get install prometheus); CI runs this check');
  }
  return found;
}

/** `promtool check metrics` reading `exposition` on stdin: its exit code and what it said. */
function checkMetrics(exposition: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(exposition);
  });
}

describe('metrics: promtool check metrics', () => {
  for (const workers of [1, 2]) {
    test(`when a server with ${workers} worker${workers > 1 ? 's' : ''} has answered requests, then promtool finds nothing wrong in its scrape`, async (t) => {
      if (!(await promtoolOrSkip(t))) return;
      const backend = storageBackends()[0];
      assert.ok(backend);
      const { config, storage } = await backend.freshDatabase(t);
      const { auth } = await createTenant(testServices(storage), 'Promtool');
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) }, workers > 1 ? ['--workers', String(workers)] : []);
      assert.ok(server.metricsUrl);
      // A listing, an unknown route and a refused key: the HTTP series with several labels exist.
      assert.equal((await fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth })).status, 200);
      assert.equal((await fetch(`${server.baseUrl}/v1/nowhere`)).status, 404);
      assert.equal((await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { authorization: 'Bearer nope' } })).status, 401);
      const response = await fetch(server.metricsUrl);
      // What the aggregator said (a worker that did not answer within prom-client's 5 s, say) and what the server logged.
      assert.equal(response.status, 200, `${await response.clone().text()}${server.stderr()}`);
      const exposition = await response.text();
      assert.match(exposition, /^nodejs_active_handles\{/m, 'the per-type gauge stays');
      assert.doesNotMatch(exposition, /^nodejs_active_\w+_total/m);
      const { code, output } = await checkMetrics(exposition);
      assert.equal(output, '');
      assert.equal(code, 0);
    });
  }

  test('when promtool reads a gauge named like a counter, then it refuses it (the check above can fail)', async (t) => {
    if (!(await promtoolOrSkip(t))) return;
    const { code, output } = await checkMetrics('# HELP nodejs_active_handles_total Total.\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 3\n');
    assert.notEqual(code, 0);
    assert.match(output, /non-counter metrics should not have "_total" suffix/);
  });
});
