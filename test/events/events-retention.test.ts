import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createBackgroundEventsPruner } from '../../src/composition.js';
import { createEventsPruner } from '../../src/events/events-pruner.js';
import { capturingLogger } from '../support/logs.js';
import { testConfig, testServices } from '../support/container.js';
import { waitFor } from '../support/process.js';
import { sqliteBackend } from '../support/storage.js';

const DAY_MS = 86_400_000;

describe('events retention', () => {
  test('when EVENTS_RETENTION_DAYS is not set, then events are kept 30 days; the setting is bounded', () => {
    assert.equal(testConfig().events.retentionDays, 30);
    assert.equal(testConfig({ EVENTS_RETENTION_DAYS: '7' }).events.retentionDays, 7);
    assert.throws(() => testConfig({ EVENTS_RETENTION_DAYS: '0' }), /EVENTS_RETENTION_DAYS/);
  });

  test('when time passes the retention, then the background pruner deletes older events at start and on every interval, and stops on close', async (t) => {
    const { storage } = await sqliteBackend.freshDatabase(t);
    let now = Date.parse('2026-11-01T00:00:00.000Z');
    const clock = { now: () => new Date(now) };
    const config = testConfig({ EVENTS_RETENTION_DAYS: '2', EVENTS_PRUNE_INTERVAL_MS: '20' });
    const services = testServices(storage, { config, clock });
    const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
    await services.orderOperations.createOrder({ accountId: account.id, id: 1n, quantity: 1 });
    now += DAY_MS;
    await services.orderOperations.createOrder({ accountId: account.id, id: 2n, quantity: 1 });
    const feed = async () => (await services.events.listEvents(account.id, { filter: {}, limit: 50 })).events.map((e) => e.subject);

    const { logger, logs } = capturingLogger();
    const pruner = createBackgroundEventsPruner({ config, services }, logger);
    now += DAY_MS + 1;
    pruner.start();
    await waitFor(async () => (await feed()).length === 1, 'the first event pruned at start');
    assert.deepEqual(await feed(), ['order:2'], 'the younger one is kept');
    now += DAY_MS;
    await waitFor(async () => (await feed()).length === 0, 'the second event pruned on a later round');
    await pruner.stop();

    // After stop, no round runs: an event past the retention stays.
    await services.orderOperations.createOrder({ accountId: account.id, id: 3n, quantity: 1 });
    now += 3 * DAY_MS;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await feed(), ['order:3']);
    assert.deepEqual(logs.filter((line) => line.includes('could not prune')), []);
  });

  test('when a round fails (the database is gone), then it is reported and the next round still runs', async (t) => {
    const { storage } = await sqliteBackend.freshDatabase(t);
    const services = testServices(storage);
    await storage.close();
    const errors: unknown[] = [];
    const pruner = createEventsPruner({ eventsService: services.events, intervalMs: 10, onError: (error) => errors.push(error) });
    t.after(() => pruner.stop());
    pruner.start();
    await waitFor(() => errors.length >= 2, 'two failed rounds');
    await pruner.stop();
    assert.match(String(errors[0]), /database/i);
  });
});
