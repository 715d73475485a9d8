import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, startServer } from '../support/process.js';
import { storageBackends } from '../support/storage.js';
import { createTenant } from '../support/quickstart.js';
import { testServices } from '../support/container.js';
import { databaseUrlOf, scrape } from './scrape.js';

const RULES = path.join(ROOT, 'docs/operations/prometheus-rules.yml');
const DASHBOARD = path.join(ROOT, 'docs/operations/grafana-dashboard.json');

/** Every metric name a PromQL text refers to (ours and Node's: the prefixes we expose). */
function metricNames(text: string): Set<string> {
  return new Set(text.match(/\b(?:http_server|store|nodejs|process)_[a-z0-9_]+\b/g) ?? []);
}

function dashboardExpressions(): string {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)).join('\n');
}

describe('docs/operations: alerting rules and dashboard', () => {
  test('when promtool checks the alerting rules, then they are valid', async (t) => {
    const found = await new Promise<boolean>((resolve) => execFile('promtool', ['--version'], (error) => resolve(error === null)));
    if (!found) {
      assert.ok(process.env.CI === undefined, 'CI installs promtool (Debian package prometheus, .ci/run): it must be there');
      t.skip('promtool is absent (apt-get install prometheus); CI runs this check');
      return;
    }
    const output = await new Promise<string>((resolve, reject) =>
      execFile('promtool', ['check', 'rules', RULES], (error, stdout, stderr) => (error ? reject(new Error(`${stdout}${stderr}`)) : resolve(stdout))),
    );
    assert.match(output, /SUCCESS: \d+ rules found/);
  });

  test('when a server runs on PostgreSQL, then every metric the rules and the dashboard use is in its scrape', async (t) => {
    const backend = storageBackends().find((b) => b.name !== 'sqlite');
    assert.ok(backend, 'the test launcher provides PostgreSQL');
    const { config, storage } = await backend.freshDatabase(t);
    const { auth } = await createTenant(testServices(storage), 'Dashboard');
    const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) });
    assert.ok(server.metricsUrl);
    // One request creates the HTTP series; the others exist from the start.
    assert.equal((await fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth })).status, 200);
    const exposed = new Set((await scrape(server.metricsUrl)).map((s) => s.name));
    const used = metricNames(`${readFileSync(RULES, 'utf8')}\n${dashboardExpressions()}`);
    assert.ok(used.size >= 8, `the files use our metrics (${[...used].join(', ')})`);
    const missing = [...used].filter((name) => !exposed.has(name));
    assert.deepEqual(missing, [], 'metrics referenced but not exposed');
  });
});
