/**
 * Real-browser tests of the portal: Debian's Chromium driven by
 * playwright-core (as the docs page test does), the portal and the store
 * host listening on real ports over one database, and axe-core's check.
 * Every portal page's browser test starts here.
 */
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from './app.js';
import { createTestPortal, type TestPortal } from './portal.js';
import type { TestBackend } from './storage.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * The `skip` option of a browser test: CI installs Debian's chromium
 * (.ci/run), so there the test must run; only a developer machine without it
 * may skip, and it says so.
 */
export const browserSkip: string | false =
  !existsSync(CHROMIUM) && process.env.CI === undefined ? `${CHROMIUM} is absent (install it: apt-get install -y chromium); this test runs whenever CI is set` : false;

/** Chromium, headless, closed when the test ends. */
async function launchChromium(t: TestContext): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
  t.after(() => browser.close());
  return browser;
}

export interface BrowserPortal {
  portal: TestPortal;
  /** The store host over the same database (keys made in the portal work there). */
  api: TestApp;
  /** The portal's origin, http://localhost:<port> (PORTAL_PUBLIC_URL unset, as after a default `npm start`). */
  origin: string;
  /** The store host's address, http://127.0.0.1:<port>. */
  apiOrigin: string;
  browser: Browser;
  /** A page of a fresh browser context (its own cookies). */
  newPage(options?: { viewport?: { width: number; height: number }; javaScriptEnabled?: boolean }): Promise<Page>;
}

/** The store host and the portal listening on free ports over one fresh database of `backend`, and a browser. */
export async function startBrowserPortal(t: TestContext, backend: TestBackend, { env = {} }: { env?: Record<string, string> } = {}): Promise<BrowserPortal> {
  const api = await createTestApp(t, backend);
  const apiOrigin = await api.app.listen({ host: '127.0.0.1', port: 0 });
  const portal = await createTestPortal(t, backend, {
    env,
    over: { storage: api.storage, database: api.database },
    storeAddress: () => apiOrigin,
    derivedOrigin: true,
  });
  await portal.app.listen({ host: '127.0.0.1', port: 0 });
  const address = portal.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the portal is not listening on a port');
  const browser = await launchChromium(t);
  return {
    portal,
    api,
    origin: `http://localhost:${address.port}`,
    apiOrigin,
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext(options);
      t.after(() => context.close());
      return context.newPage();
    },
  };
}

/** axe-core's serious and critical violations of the page as it is now (WCAG 2.1 A and AA rules), as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${page.url()}: ${violation.id} (${violation.impact ?? ''}) ${violation.help}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
