/** The sign-in, sign-up and reset throttle is kept in the database: every process of the portal spends one budget. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSql } from '../../support/raw-sql.js';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD } from '../../support/portal.js';

for (const backend of httpBackends()) {
  describe(`portal throttle across processes: ${backend.name}`, () => {
    test('when failed sign-ins for one email alternate between two processes, then the fifth is the last either lets through, and the right password waits too', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      const elsewhere = await portal.anotherProcess();
      const attempt = (i: number, password: string) => {
        const client = portal.client();
        return (i % 2 === 0 ? client : client.withApp(elsewhere)).post('/sign-in', { email, password }, {}, '/sign-in');
      };
      for (let i = 0; i < 5; i += 1) assert.equal((await attempt(i, 'wrong password here')).statusCode, 401, `attempt ${i + 1}`);
      for (let i = 5; i < 7; i += 1) {
        const refused = await attempt(i, TEST_PASSWORD);
        assert.equal(refused.statusCode, 429, `attempt ${i + 1}, on the ${i % 2 === 0 ? 'first' : 'second'} process`);
        assert.match(pageText(refused.body), /Too many attempts\. Try again in 15 minutes\./);
      }
      portal.clock.advance(15 * 60_000);
      assert.equal((await attempt(1, TEST_PASSWORD)).statusCode, 303);
    });

    test('when one address signs up and resets on two processes at once, then exactly its budget is spent, not twice it', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_ADDRESS: '6' } });
      const elsewhere = await portal.anotherProcess();
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const client = portal.client();
          if (i % 2 === 1) client.withApp(elsewhere);
          return i % 3 === 0
            ? client.post('/reset-password', { token: 'not-a-token', password: TEST_PASSWORD }, {}, '/sign-in')
            : client.post('/sign-up', { email: `person${i}@example.com`, password: TEST_PASSWORD, storeName: `Store ${i}` }, {}, '/sign-up');
        }),
      );
      assert.equal(responses.filter((r) => r.statusCode === 429).length, 6, responses.map((r) => r.statusCode).join(', '));
    });

    test('when the throttle stores a key, then it is a hash: no email or address is kept in clear', async (t) => {
      const portal = await createTestPortal(t, backend);
      await portal.client().post('/sign-in', { email: 'someone@example.com', password: 'wrong' }, {}, '/sign-in');
      const rows = await readSql(portal.database, 'SELECT key FROM attempt_throttle');
      assert.equal(rows.length, 2, 'one email and one address');
      const text = JSON.stringify(rows);
      assert.doesNotMatch(text, /someone|example|127\.0\.0\.1/);
    });
  });
}
