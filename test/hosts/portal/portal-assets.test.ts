/** The portal's assets and its request budget over real requests: one hashed script and style sheet cached for a year, outside the budget; pages inside it; the navigation and the sign-out notice. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { bundlePortalAssets, readBuiltAssets, sourceFingerprint, writeBuiltAssets } from '../../../src/hosts/portal/assets/portal-assets.js';
import { testConfig } from '../../support/container.js';
import { assetLinks, createTestPortal, pageText, signUp } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

/** The configuration's own per-address budget (RATE_LIMIT_REQUESTS unset), which test portals otherwise turn off. */
const DEFAULT_BUDGET = { RATE_LIMIT_REQUESTS: String(testConfig().limits.rateLimit.requests) };
const SIGNED_IN_PAGES = ['/', '/keys', '/orders', '/webhooks', '/audit', '/settings'];

test('when the build writes the bundles, then they are read back as built from these sources, and not once the sources differ or nothing was built', async (t) => {
  const dir = `${mkdtempSync(path.join(tmpdir(), 'portal-assets-'))}/`;
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(readBuiltAssets(dir, sourceFingerprint()), undefined, 'nothing built');
  const bundled = await bundlePortalAssets();
  writeBuiltAssets(dir, bundled, sourceFingerprint());
  const built = readBuiltAssets(dir, sourceFingerprint());
  assert.deepEqual(built, bundled);
  assert.equal(readBuiltAssets(dir, 'the fingerprint of other sources'), undefined, 'a stale build is not used');
});

for (const backend of httpBackends()) {
  describe(`portal assets and budget: ${backend.name}`, () => {
    test('when any page is served, then it links one script and one style sheet by content-hashed names, cached for a year; other /assets/ paths are 404', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const links = assetLinks((await client.get('/')).body);
      for (const page of [...SIGNED_IN_PAGES, '/no-such-page']) {
        const html = (await client.get(page)).body;
        assert.deepEqual(assetLinks(html), links, page);
        assert.equal(html.match(/<script\b/g)?.length, 1, `${page}: one script`);
        assert.equal(html.match(/<link rel="stylesheet"/g)?.length, 1, `${page}: one style sheet`);
      }
      for (const page of ['/sign-in', '/sign-up']) assert.deepEqual(assetLinks((await portal.client().get(page)).body), links, page);

      for (const [url, type] of [[links.script, /^text\/javascript/], [links.style, /^text\/css/]] as const) {
        const response = await portal.client().get(url);
        assert.equal(response.statusCode, 200, url);
        assert.match(String(response.headers['content-type']), type, url);
        assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', url);
        assert.equal(response.headers.ratelimit, undefined, `${url}: not counted`);
        const hash = createHash('sha256').update(response.rawPayload).digest('hex').slice(0, 16);
        assert.match(url, new RegExp(`^/assets/portal-${hash}\\.(js|css)$`), `${url}: named by its content`);
        assert.ok(response.body.split('\n').length <= 3, `${url}: minified`);
      }
      const script = (await portal.client().get(links.script)).body;
      for (const part of ['data-copy', 'data-confirm', '/passkeys/sign-in/options', 'navigator.credentials']) assert.ok(script.includes(part), `the one script holds ${part}`);
      for (const url of ['/assets/portal.css', '/assets/portal.js', '/assets/passkeys.js', '/assets/simplewebauthn/index.js', '/assets/portal-0123456789abcdef.js']) {
        assert.equal((await portal.client().get(url)).statusCode, 404, url);
      }
    });

    test('when a busy user browses fifty pages in a minute, each with its script and style sheet fetched again, then none is refused: with the default budget only the pages count', async (t) => {
      const portal = await createTestPortal(t, backend, { env: DEFAULT_BUDGET });
      const { client } = await signUp(portal);
      const { script, style } = assetLinks((await client.get('/')).body);
      let last = '';
      for (let page = 0; page < 50; page++) {
        const url = SIGNED_IN_PAGES[page % SIGNED_IN_PAGES.length] ?? '/';
        const response = await client.get(url);
        assert.equal(response.statusCode, 200, `page ${page + 1}: ${url}`);
        last = String(response.headers.ratelimit);
        // As a browser that keeps nothing in its cache would.
        for (const asset of [script, style]) assert.equal((await client.get(asset)).statusCode, 200, `page ${page + 1}: ${asset}`);
      }
      const budget = Number(DEFAULT_BUDGET.RATE_LIMIT_REQUESTS);
      // Sign-up (its form, its post), the account page above and fifty pages; no asset.
      assert.match(last, new RegExp(`^"default";r=${budget - 53};t=\\d+$`), 'only the pages were counted');
    });

    test('when one address floods the portal with a thousand requests, then past the per-address budget it gets the 429 page, while the assets still load', async (t) => {
      const portal = await createTestPortal(t, backend, { env: DEFAULT_BUDGET });
      const client = portal.client();
      const { script } = assetLinks((await client.get('/sign-in')).body);
      const statuses = new Map<number, number>();
      for (let request = 0; request < 1000; request++) {
        const { statusCode } = await client.get('/sign-in');
        statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      }
      const budget = Number(DEFAULT_BUDGET.RATE_LIMIT_REQUESTS);
      assert.deepEqual(Object.fromEntries(statuses), { 200: budget - 1, 429: 1001 - budget });
      const refused = await client.get('/sign-up');
      assert.equal(refused.statusCode, 429);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.match(pageText(refused.body), /Too many requests from your address\. Try again in 1 minute\./);
      assert.equal((await client.get(script)).statusCode, 200, 'the page still gets its script');
    });

    test('when a signed-in page is shown, then its own navigation link alone is aria-current="page"; a deeper page marks its section', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      for (const url of [...SIGNED_IN_PAGES, '/orders?status=pending']) {
        const html = (await client.get(url)).body;
        const current = [...html.matchAll(/<a href="([^"]+)" aria-current="([^"]+)">/g)].map(([, href, value]) => `${href ?? ''} ${value ?? ''}`);
        assert.deepEqual(current, [`${url.split('?')[0] ?? ''} page`], url);
      }
      const user = await portal.storage.users.findByEmail(email);
      const { apiKey } = await portal.services.apiKeys.createKey({ accountId: user?.accountId ?? 0 });
      const roll = (await client.get(`/keys/${apiKey.id}/roll`)).body;
      assert.deepEqual([...roll.matchAll(/<a href="([^"]+)" aria-current="([^"]+)">/g)].map(([, href, value]) => `${href ?? ''} ${value ?? ''}`), ['/keys true']);
      assert.doesNotMatch((await portal.client().get('/sign-in')).body, /aria-current/, 'no navigation before signing in');
    });

    test('when a user signs out, then the sign-in page says "You have signed out."; after Sign out everywhere it says so of every browser', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email, password } = await signUp(portal);
      const out = await client.post('/sign-out', {}, {}, '/');
      assert.equal(out.statusCode, 303);
      const signInPage = await client.get(String(out.headers.location));
      assert.equal(signInPage.statusCode, 200);
      assert.match(pageText(signInPage.body), /Sign in You have signed out\. Email/);
      assert.match(signInPage.body, /<div class="alert success" role="status">You have signed out\.<\/div>/);
      assert.doesNotMatch(pageText((await client.get('/sign-in')).body), /signed out/, 'a plain visit says nothing');

      assert.equal((await client.post('/sign-in', { email, password }, {}, '/sign-in')).statusCode, 303);
      const everywhere = await client.post('/settings/sign-out-everywhere', {}, {}, '/settings');
      assert.equal(everywhere.statusCode, 303);
      assert.match(pageText((await client.get(String(everywhere.headers.location))).body), /You have signed out in every browser\./);
    });
  });
}
