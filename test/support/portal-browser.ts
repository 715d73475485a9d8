/**
 * A real browser on a listening portal and store host over one database:
 * Debian's chromium driven by playwright-core (as the docs page test does),
 * with a WebAuthn virtual authenticator when asked, and an axe check.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildTestStoreApp } from './app.js';
import { capturingLogger } from './logs.js';
import { createTestPortal, type TestPortal } from './portal.js';
import type { TestBackend } from './storage.js';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

/** A port free right now (the portal's origin must be known before it listens: PORTAL_PUBLIC_URL). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface LivePortal {
  portal: TestPortal;
  store: FastifyInstance;
  /** http://localhost:<port>: WebAuthn's RP ID must be a name, not an IP address. */
  portalUrl: string;
  storeUrl: string;
  browser: Browser;
}

/** The portal and the store host listening over one fresh database of `backend`, and a chromium. */
export async function startLivePortal(t: TestContext, backend: TestBackend, env: Record<string, string> = {}): Promise<LivePortal> {
  const port = await freePort();
  const portalUrl = `http://localhost:${port}`;
  const portal = await createTestPortal(t, backend, { env: { PORTAL_PUBLIC_URL: portalUrl, ...env } });
  const store = await buildTestStoreApp({ logger: capturingLogger().logger, services: portal.services, storage: portal.storage });
  t.after(() => store.close());
  const storeUrl = await store.listen({ host: '127.0.0.1', port: 0 });
  await portal.app.listen({ host: '127.0.0.1', port });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.after(() => browser.close());
  return { portal, store, portalUrl, storeUrl, browser };
}

/** Adds a virtual platform authenticator (user verification on) to the page's browser context. */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

/** Fails when axe finds a serious or critical violation on the page as it is now. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  assert.deepEqual(
    bad.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    [],
    `${what}: no serious or critical accessibility violation`,
  );
}
