/** The portal's form defences over real requests, on every backend: CSRF and Origin, headers, error pages, credentials kept apart. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { httpBackends } from '../../support/storage.js';
import { createTestApp } from '../../support/app.js';
import { assetLinks, createTestPortal, pageText, signUp, TEST_PASSWORD, TEST_PORTAL_ORIGIN } from '../../support/portal.js';

const NEW_PASSWORD = 'another long passphrase';

for (const backend of httpBackends()) {
  describe(`portal forms: ${backend.name}`, () => {
    test('when a form is posted without its CSRF token, with a wrong one, from another origin, with Origin null or no origin at all, then 403 and nothing changes', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      await client.get('/settings');
      const forgeries = [
        { csrf: null },
        { csrf: 'forged-token' },
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { origin: null },
        { origin: `${TEST_PORTAL_ORIGIN}.evil.example` },
      ];
      for (const forgery of forgeries) {
        const response = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD }, forgery);
        assert.equal(response.statusCode, 403, JSON.stringify(forgery));
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.match(pageText(response.body), /did not come from this site/);
      }
      // Nothing changed: the old password still signs in, the session still works.
      assert.equal((await client.get('/')).statusCode, 200);
      assert.equal((await portal.client().post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303);
      const signOut = await client.post('/sign-out', {}, { csrf: null });
      assert.equal(signOut.statusCode, 403);
      assert.equal((await client.get('/')).statusCode, 200, 'a forged sign-out does not sign out');
    });

    test('when a sign-up or sign-in form is forged (login CSRF), then 403 and no account or session is made', async (t) => {
      const portal = await createTestPortal(t, backend);
      const client = portal.client();
      const signUpForged = await client.post('/sign-up', { email: 'x@example.com', password: TEST_PASSWORD, storeName: 'X' }, { origin: 'https://evil.example' }, '/sign-up');
      assert.equal(signUpForged.statusCode, 403);
      assert.equal((await portal.services.users.listUsers()).length, 0);
      assert.equal((await portal.services.accounts.listAccounts()).length, 0);
      const noToken = await portal.client().post('/sign-up', { email: 'x@example.com', password: TEST_PASSWORD, storeName: 'X' }, { csrf: null });
      assert.equal(noToken.statusCode, 403);
      assert.equal((await portal.services.users.listUsers()).length, 0);
    });

    test('when the token comes from another browser, then it is refused (tokens are bound to the browser’s own secret cookie)', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const attacker = portal.client();
      await attacker.get('/sign-in');
      const response = await client.post('/settings/sign-out-everywhere', {}, { csrf: attacker.csrfToken ?? '' });
      assert.equal(response.statusCode, 403);
      assert.equal((await client.get('/')).statusCode, 200);
    });

    test('when pages are served, then every answer carries the strict headers, signed-in pages are no-store, and assets come from the portal', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      for (const path of ['/', '/settings', '/sign-in', '/sign-up', '/no-such-page']) {
        const response = await client.get(path);
        const csp = String(response.headers['content-security-policy']);
        assert.match(csp, /default-src 'self'/, path);
        assert.match(csp, /frame-ancestors 'none'/, path);
        assert.match(csp, /script-src 'self'(;|$)/, path);
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
        assert.equal(response.headers['referrer-policy'], 'same-origin', path);
        assert.equal(response.headers['x-content-type-options'], 'nosniff', path);
        assert.equal(response.headers['x-frame-options'], 'DENY', path);
        assert.equal(response.headers['cache-control'], 'no-store', path);
        assert.doesNotMatch(response.body, /<script>|<style>|\sstyle="|\son[a-z]+="/i, `${path}: no inline script or style`);
      }
      const { script, style } = assetLinks((await client.get('/')).body);
      const css = await client.get(style);
      assert.equal(css.statusCode, 200);
      assert.match(String(css.headers['content-type']), /^text\/css/);
      const js = await client.get(script);
      assert.equal(js.statusCode, 200);
      assert.match(String(js.headers['content-type']), /^text\/javascript/);
    });

    test('when something fails (404, 405, 400, 500/503), then the answer is a human HTML page, never JSON or a stack', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const notFound = await client.get('/nowhere');
      assert.equal(notFound.statusCode, 404);
      assert.match(pageText(notFound.body), /Page not found/);
      const wrongMethod = await portal.app.inject({ method: 'DELETE', url: '/settings', headers: { origin: TEST_PORTAL_ORIGIN } });
      assert.equal(wrongMethod.statusCode, 405);
      const badForm = await client.post('/settings/password', { currentPassword: 'x'.repeat(5000), newPassword: 'y' }, {}, '/settings');
      assert.equal(badForm.statusCode, 400);
      await portal.storage.close();
      const down = await client.get('/');
      // SQLite says the handle is closed (503); a closed pg pool is an internal error (500): a page either way.
      assert.ok(down.statusCode === 503 || down.statusCode === 500, String(down.statusCode));
      for (const response of [notFound, wrongMethod, badForm, down]) {
        assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
        assert.doesNotMatch(response.body, /^\s*\{/);
        assert.doesNotMatch(response.body, /\bat .+\.(ts|js):\d+/, 'no stack trace');
        assert.match(response.body, /<h1>/);
      }
      assert.match(pageText(down.body), /Something went wrong on our side/);
    });

    test('when the portal is sent an API key, then it is not a credential there; when the API is sent the portal cookie, then it is not one either', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const api = await createTestApp(t, backend);
      const { key } = await api.tenant();
      const withKey = await portal.app.inject({ method: 'GET', url: '/', headers: { authorization: `Bearer ${key}` } });
      assert.equal(withKey.statusCode, 303);
      assert.equal(withKey.headers.location, '/sign-in');
      const cookie = `so_session=${client.sessionCookie() ?? ''}`;
      for (const url of ['/v1/store/orders', '/v2/store/orders']) {
        const withCookie = await api.app.inject({ method: 'GET', url, headers: { cookie } });
        assert.equal(withCookie.statusCode, 401, url);
      }
    });

    test('when sign-in names a next page, then only a path of the portal is followed (no open redirect)', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      const cases: [string, string][] = [
        ['/settings', '/settings'],
        ['https://evil.example/', '/'],
        ['//evil.example/x', '/'],
        ['/\\evil.example', '/'],
        ['javascript:alert(1)', '/'],
        ['/settings?tab=1', '/settings?tab=1'],
      ];
      for (const [next, expected] of cases) {
        const response = await portal.client().post('/sign-in', { email, password: TEST_PASSWORD, next }, {}, `/sign-in?next=${encodeURIComponent(next)}`);
        assert.equal(response.statusCode, 303, next);
        assert.equal(response.headers.location, expected, next);
      }
    });
  });
}
