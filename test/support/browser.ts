/**
 * Real-browser tests of the portal: Debian's Chromium driven by
 * playwright-core (as the docs page test does), the portal and the store
 * host listening on real ports over one database, a WebAuthn virtual
 * authenticator when asked, and axe-core's check. Every portal page's
 * browser test starts here.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createMailEngine } from '../../src/background-work.js';
import { buildTestStoreApp, testOutages } from './app.js';
import { capturingLogger } from './logs.js';
import { createTestPortal, pendingSignUp, TEST_PASSWORD, type TestPortal } from './portal.js';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';
import type { TestBackend } from './storage.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * The `skip` option of a browser test: CI installs Debian's chromium
 * (.ci/run), so there the test must run; only a developer machine without it
 * may skip, and it says so.
 */
export const browserSkip: string | false =
  !existsSync(CHROMIUM) && process.env.CI === undefined ? `${CHROMIUM} is absent (install it: apt-get install -y chromium); this test runs whenever CI is set` : false;

/**
 * Chromium, headless, closed when the test ends. Pages are opened at
 * http://localhost:<port> (a passkey's relying party must be a name, not an
 * address) while the servers listen on 127.0.0.1 only; Chromium tries ::1
 * first for localhost, where another process of the run may listen on the
 * same port number. So localhost is mapped to 127.0.0.1: a page always
 * reaches the server the test started.
 */
export async function launchChromium(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP localhost 127.0.0.1',
    ],
  });
  t.after(() => browser.close());
  return browser;
}

export interface BrowserPortal {
  portal: TestPortal;
  /** The store host over the portal's services (one key cache: a key revoked in the portal is refused there at once). */
  store: FastifyInstance;
  /** The portal's origin, http://localhost:<port> (PORTAL_PUBLIC_URL unset, as after a default `npm start`; WebAuthn's RP ID must be a name, not an IP address). */
  origin: string;
  /** The store host's address, http://127.0.0.1:<port>. */
  apiOrigin: string;
  browser: Browser;
  /** A page of a fresh browser context (its own cookies). */
  newPage(options?: { viewport?: { width: number; height: number }; javaScriptEnabled?: boolean }): Promise<Page>;
}

/** The portals startBrowserPortal runs, by origin: signUp(page, origin, …) writes its pending sign-up to that portal's storage. */
const portalsByOrigin = new Map<string, TestPortal>();

/** The store host and the portal listening on free ports over one fresh database of `backend`, and a browser. */
export async function startBrowserPortal(t: TestContext, backend: TestBackend, { env = {} }: { env?: Record<string, string> } = {}): Promise<BrowserPortal> {
  let apiOrigin = '';
  const portal = await createTestPortal(t, backend, { env, storeAddress: () => apiOrigin, derivedOrigin: true });
  const store = await buildTestStoreApp({ logger: capturingLogger().logger, services: portal.services, storage: portal.storage });
  t.after(() => store.close());
  apiOrigin = await store.listen({ host: '127.0.0.1', port: 0 });
  await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const address = portal.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the portal is not listening on a port');
  const browser = await launchChromium(t);
  const origin = `http://localhost:${address.port}`;
  portalsByOrigin.set(origin, portal);
  t.after(() => portalsByOrigin.delete(origin));
  return {
    portal,
    store,
    origin,
    apiOrigin,
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext(options);
      t.after(() => context.close());
      return context.newPage();
    },
  };
}

/**
 * A new user and their store, signed in on `page`: a pending sign-up written
 * as the form leaves it (pendingSignUp: the form is tested by
 * signUpThroughMailbox's tests), finished on its link's page as a person
 * does (the password, **Create account**); lands on the account page.
 */
export async function signUp(page: Page, origin: string, email: string, store: string): Promise<void> {
  const portal = portalsByOrigin.get(origin);
  if (portal === undefined) throw new Error(`no portal started by startBrowserPortal at ${origin}`);
  const token = await pendingSignUp(portal, { email, storeName: store, origin });
  const answer = await page.goto(`${origin}/sign-up/confirm?token=${token}`);
  // Seen in full runs: the link's page had no Password field (once a 503). Say what it showed and what the portal logged.
  await page
    .getByLabel('Password')
    .waitFor({ timeout: 15_000 })
    .catch(async (error: unknown) => {
      const requestId = answer === null ? undefined : await answer.headerValue('x-request-id');
      const logged = requestId === undefined || requestId === null ? [] : portal.logs.filter((line) => line.includes(requestId));
      throw new Error(
        `the sign-up link's page (status ${String(answer?.status())}) has no Password field; it shows: ${((await page.textContent('body')) ?? '').replace(/\s+/g, ' ').slice(0, 400)}; ` +
          `the portal logged for it: ${logged.join('').slice(0, 2000) || 'nothing'}`,
        { cause: error },
      );
    });
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${origin}/`);
}

/**
 * Signs up as the README's walkthrough says, on a portal without SMTP_URL:
 * the form, "Check your email to continue", the mail in the Development
 * mailbox, its link, the password again, **Create account**; lands on the
 * account page.
 */
export async function signUpThroughMailbox(page: Page, origin: string, email: string, store: string): Promise<void> {
  await page.goto(`${origin}/sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByLabel('Store name').fill(store);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your email to continue' }).waitFor();
  await page.getByRole('link', { name: 'Development mailbox' }).click();
  await page.getByRole('link', { name: /\/sign-up\/confirm\?token=/ }).click();
  await page.getByLabel('Password').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${origin}/`);
}

/** Adds a virtual platform authenticator (user verification on) to the page's browser context (CDP WebAuthn.addVirtualAuthenticator). */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

/**
 * axe-core on `page`, run by axe.run() in the page itself (the builder's
 * "legacy mode"). Its default runs axe.runPartial() in every frame and then
 * axe.finishRun() in a blank page it opens for each analysis: about 0.8 s
 * against 0.35 s here, with the same rules. What legacy mode gives up is
 * cross-origin frames, and no portal page has a frame.
 */
function axeOf(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode();
}

/** axe-core's violations of the page as it is now (every rule axe runs by default: WCAG 2.x A and AA and best practices), whatever their impact, as readable lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await axeOf(page).analyze();
  return results.violations.map((violation) => `${page.url()}: ${violation.id} (${violation.impact ?? ''}) ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Whether the page is wider than the window (a phone user would scroll sideways). */
export async function scrollsSideways(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth')) === true;
}

/** Fails when axe finds any violation on the page as it is now, whatever its impact (issue 27: zero violations on every page). */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `${what}: no accessibility violation`);
}

/**
 * A portal in the browser whose mail goes out for real: a real SMTP server on
 * loopback (test/support/smtp.ts) and the server's own mail engine polling
 * every 100 ms, stopped when the test ends.
 */
export async function startBrowserPortalWithMail(t: TestContext, backend: TestBackend): Promise<BrowserPortal & { smtp: TestSmtpServer }> {
  const smtp = await startSmtpServer(t, { user: 'mailer', password: 'mail-password' });
  const started = await startBrowserPortal(t, backend, { env: { SMTP_URL: smtp.url, MAIL_POLL_INTERVAL_MS: '100' } });
  const { logger } = capturingLogger();
  const { portal } = started;
  const engine = createMailEngine({ config: portal.config, storage: portal.storage, services: portal.services }, logger, testOutages(logger, portal.storage));
  engine.start();
  t.after(() => engine.stop());
  return { ...started, smtp };
}
