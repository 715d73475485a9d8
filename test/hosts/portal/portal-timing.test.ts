/**
 * Issue 17: a failed sign-in must not tell an unknown email from a wrong
 * password by its time. Measured over real requests: the medians of the two
 * must be within 10 %. Medians of interleaved samples resist the noise of a
 * shared machine; a round that is off is measured again (up to five), since
 * a real difference (a skipped Argon2 verification costs tens of
 * milliseconds against a request of about one millisecond) fails every round.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { httpBackends } from '../../support/storage.js';
import { createTestPortal, signUp, type PortalClient } from '../../support/portal.js';

const SAMPLES = 51;
const ROUNDS = 5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

async function timed(client: PortalClient, email: string): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await client.post('/sign-in', { email, password: 'wrong password here' });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(response.statusCode, 401);
  return elapsed;
}

for (const backend of httpBackends()) {
  describe(`portal sign-in timing: ${backend.name}`, () => {
    test('when sign-in fails for an unknown email and for a wrong password, then the median times are within 10 %', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_THROTTLE_PER_EMAIL: '100000', PORTAL_THROTTLE_PER_ADDRESS: '100000' } });
      const { email } = await signUp(portal);
      const client = portal.client();
      await client.get('/sign-in');
      // Warm-up: the dummy hash, statement caches, JIT.
      for (let i = 0; i < 3; i += 1) {
        await timed(client, 'nobody@example.com');
        await timed(client, email);
      }
      const rounds: string[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const unknown: number[] = [];
        const wrong: number[] = [];
        for (let i = 0; i < SAMPLES; i += 1) {
          // Alternate which goes first, so that neither always follows the other.
          if (i % 2 === 0) {
            unknown.push(await timed(client, `nobody-${i}@example.com`));
            wrong.push(await timed(client, email));
          } else {
            wrong.push(await timed(client, email));
            unknown.push(await timed(client, `nobody-${i}@example.com`));
          }
        }
        const [a, b] = [median(unknown), median(wrong)];
        const difference = Math.abs(a - b) / Math.max(a, b);
        rounds.push(`unknown ${a.toFixed(1)} ms, wrong password ${b.toFixed(1)} ms (${(difference * 100).toFixed(1)} %)`);
        t.diagnostic(rounds.at(-1) ?? '');
        if (difference <= 0.1) return;
      }
      assert.fail(`the medians differ by more than 10 % in every round: ${rounds.join('; ')}`);
    });
  });
}
