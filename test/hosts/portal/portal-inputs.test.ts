/** Inputs a visitor controls, generated (fast-check): the `next` parameter and the sign-in and sign-up forms. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { safeNext } from '../../../src/hosts/portal/portal-session.js';
import { createTestPortal } from '../../support/portal.js';
import { sqliteBackend } from '../../support/storage.js';

describe('portal inputs', () => {
  test('when next is any text, then safeNext gives a path of this site only', () => {
    const base = 'http://portal.example';
    // Paths that only name another host once dot segments are resolved (issue 27): /.//evil.example, /a/..//evil.example, /%2e//evil.example.
    const dotSegments = fc.array(fc.constantFrom('', '.', '..', '%2e', '%2E%2e', 'evil.example', 'a', '%5C', '\\'), { maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), dotSegments, fc.constantFrom('//evil.example', '/\\evil.example', '/%2F%2Fevil', '\\\\evil', '/\t/evil', 'javascript:x', '/.//evil.example', '/a/..//evil.example', '/%2e//evil.example')), (next) => {
        const path = safeNext(next);
        assert.ok(path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\'), path);
        assert.equal(new URL(path, base).origin, base, path);
      }),
      { numRuns: 2000 },
    );
    assert.equal(safeNext('/settings?x=1'), '/settings?x=1');
    assert.equal(safeNext(undefined), '/');
  });

  test('when the sign-in and sign-up forms get arbitrary fields, then the answer is a redirect within the portal or an HTML page, never a 5xx', async (t) => {
    const portal = await createTestPortal(t, sqliteBackend, { env: { PORTAL_THROTTLE_PER_EMAIL: '100000', PORTAL_THROTTLE_PER_ADDRESS: '100000' } });
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.emailAddress());
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/sign-in', '/sign-up'), text, text, text, async (url, email, password, storeName) => {
        // A fresh browser each time: a sign-up that succeeds signs its browser in.
        const response = await portal.client().post(url, { email, password, storeName }, {}, url);
        assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body.slice(0, 200)}`);
        // A valid sign-up (or sign-in) is a 303 to the next page; anything else is a page.
        if (response.statusCode !== 303) assert.match(String(response.headers['content-type']), /^text\/html/);
        else assert.ok(String(response.headers.location).startsWith('/'));
      }),
      { numRuns: 40 },
    );
  });
});
