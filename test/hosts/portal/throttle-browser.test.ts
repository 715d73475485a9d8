/**
 * The sign-in throttle in Chromium, across two real server processes
 * (`store-orders serve`, spawned) on one database, the browser tests'
 * (SQLite, or PostgreSQL with TEST_BROWSER_BACKEND=postgres, as CI's Node 24
 * run sets it):
 * failed sign-ins for one email alternate between the two portals, and both
 * refuse the sixth, the right password included. With a budget per process
 * (before issue 27), two processes let ten through.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { systemClock } from '../../../src/shared/clock.js';
import { browserSkip, launchChromium } from '../../support/browser.js';
import { sharedDatabases } from '../../support/e2e-databases.js';
import { signedUpOwner, TEST_PASSWORD } from '../../support/portal.js';
import { startServer } from '../../support/process.js';
import { browserBackends } from '../../support/storage.js';

const WAIT_MS = 15_000;

/** Signs in on the portal at `origin` in a fresh page; the answer's status and the page's main text. */
async function signIn(page: Page, origin: string, email: string, password: string): Promise<{ status: number; text: string }> {
  await page.goto(`${origin}/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  const answered = page.waitForResponse((response) => response.url() === `${origin}/sign-in` && response.request().method() === 'POST');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const status = (await answered).status();
  await page.waitForLoadState();
  return { status, text: (await page.locator('main').innerText()).replace(/\s+/g, ' ') };
}

// The browser tests' database (browserBackends: SQLite, or PostgreSQL when TEST_BROWSER_BACKEND says so), so that each CI run has both.
const chosen = browserBackends()[0]?.name.startsWith('postgres') === true ? 'postgres' : 'sqlite';

for (const makeDatabase of sharedDatabases.filter((database) => database.name === chosen)) {
  describe(`sign-in throttle across two server processes in a browser: ${makeDatabase.name}`, { skip: browserSkip }, () => {
    test('when wrong passwords for one email alternate between two servers, then both let five through and refuse the sixth, even with the right password', async (t) => {
      const database = await makeDatabase.create(t);
      // The per-address request budget off: this test is about the sign-in throttle, which counts per email and per address in the database.
      const env = { DATABASE_URL: database.url, RATE_LIMIT_REQUESTS: '0', QUICKSTART_PORT: 'off', METRICS_PORT: 'off', LOG_LEVEL: 'warn' };
      const servers = [await startServer(t, env), await startServer(t, env)];
      const origins = servers.map((server) => server.portalUrl?.replace(/\/$/, '') ?? '');
      assert.ok(origins.every((origin) => origin.startsWith('http://')) && origins[0] !== origins[1], `two portals: ${origins.join(', ')}`);
      const { storage, services } = database.open();
      const email = `throttled-${makeDatabase.name}@example.com`;
      await signedUpOwner({ storage, services, clock: systemClock }, { email });

      const browser = await launchChromium(t);
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(WAIT_MS);
      for (let attempt = 0; attempt < 5; attempt++) {
        const answer = await signIn(page, origins[attempt % 2] ?? '', email, 'not the password at all');
        assert.equal(answer.status, 401, `attempt ${attempt + 1}: ${answer.text}`);
        assert.match(answer.text, /incorrect/i);
      }
      for (const [index, origin] of origins.entries()) {
        const answer = await signIn(page, origin, email, TEST_PASSWORD);
        assert.equal(answer.status, 429, `the right password on server ${index + 1}: ${answer.text}`);
        assert.match(answer.text, /Too many attempts\. Try again in 15 minutes\./);
      }
    });
  });
}
