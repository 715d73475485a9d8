/** Migration 0029 on a database as the release before left it: existing endpoints start at their account's last event, so nothing is delivered twice. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schemaBefore } from '../support/migrations.js';
import { readSql, runSql } from '../support/raw-sql.js';
import { storageBackends } from '../support/storage.js';

const AT = '2026-11-20T10:00:00.000Z';

for (const backend of storageBackends()) {
  describe(`migration 0029, webhook cursors (${backend.name})`, () => {
    test('when 0029 meets endpoints whose events were fanned out at commit, then no event gets a second delivery and the next event gets its one', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      await schemaBefore(config, 29, AT);
      const endpoint = (id: string, account: number, status: string) =>
        `INSERT INTO webhook_endpoints (id, account_id, url, event_types, description, status, secret, created_at) VALUES ('${id}', ${account}, 'https://hooks.example.com/${id}', NULL, NULL, '${status}', 'v1.aa.bb', '${AT}')`;
      const event = (account: number, position: number) =>
        `INSERT INTO events (account_id, position, id, type, subject, created_at, payload) VALUES (${account}, ${position}, 'evt_${account}_${position}', 'order.created', 'order:${position}', '${AT}', '{}')`;
      // The rows of the release before.
      await runSql(config, [
        `INSERT INTO accounts (name, created_at) VALUES ('Main Street Pets', '${AT}'), ('Harbour Pets', '${AT}')`,
        endpoint('we_enabled', 1, 'enabled'),
        endpoint('we_disabled', 1, 'disabled'),
        endpoint('we_quiet', 2, 'enabled'),
        event(1, 1),
        event(1, 2),
        'UPDATE accounts SET events_position = 2 WHERE id = 1',
        // The fan-out of the release before: each event's row, written at its commit.
        ...[1, 2].map(
          (position) =>
            `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at) VALUES ('we_enabled', 'evt_1_${position}', 'order:${position}', 'pending', '${AT}', '${AT}')`,
        ),
      ]);

      assert.ok((await storage.migrate()).applied.includes('0029-webhook-cursors'));

      const cursors = await readSql(config, 'SELECT id, delivered_through FROM webhook_endpoints ORDER BY id');
      assert.deepEqual(
        cursors.map((row) => [row.id, Number(row.delivered_through)]),
        [
          ['we_disabled', 2],
          ['we_enabled', 2],
          ['we_quiet', 0],
        ],
      );
      assert.equal(await storage.webhooks.materializeDeliveries(), 0);
      await storage.orders.create({ accountId: 1, complete: false, status: 'pending', createdAt: AT });
      assert.equal(await storage.webhooks.materializeDeliveries(), 1);
      const rows = await readSql(config, "SELECT event_id FROM webhook_deliveries WHERE endpoint_id = 'we_enabled' ORDER BY seq");
      assert.equal(rows.length, 3);
      assert.deepEqual(rows.slice(0, 2).map((row) => row.event_id), ['evt_1_1', 'evt_1_2']);
    });
  });
}
