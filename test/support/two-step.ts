/** Two-step sign-in for portal tests: codes as an authenticator app computes them, and the set-up through the portal's pages. */
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { pageText, type PortalClient, type TestPortal } from './portal.js';

/** The code an authenticator app with `key` shows at the portal's clock. */
export function codeAt(portal: TestPortal, key: string): string {
  return new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: portal.clock.now().getTime() });
}

/** Turns two-step sign-in on for the signed-in `client`: the key the set-up page shows, and the recovery codes shown once. */
export async function turnOn(portal: TestPortal, client: PortalClient): Promise<{ key: string; recoveryCodes: string[] }> {
  const setUp = await client.post('/settings/two-step/set-up', {}, {}, '/settings');
  assert.equal(setUp.statusCode, 200, pageText(setUp.body));
  assert.match(setUp.body, /<svg[^>]*viewBox/, 'a QR code');
  const key = (/id="two-step-key">([A-Z2-7 ]+)</.exec(setUp.body)?.[1] ?? '').replace(/ /g, '');
  assert.match(key, /^[A-Z2-7]{32}$/, 'a 160-bit key in base 32');
  const uri = (/href="(otpauth:\/\/[^"]+)"/.exec(setUp.body)?.[1] ?? '').replace(/&amp;/g, '&');
  assert.match(uri, new RegExp(`^otpauth://totp/Store%20Orders:[^?]+\\?issuer=Store%20Orders&secret=${key}&algorithm=SHA1&digits=6&period=30$`), 'the key URI (RFC 6238 defaults) opens an app on a phone');
  const confirmed = await client.post('/settings/two-step/confirm', { code: codeAt(portal, key) });
  assert.equal(confirmed.statusCode, 200, pageText(confirmed.body));
  const recoveryCodes = [...confirmed.body.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)].map((match) => match[1] ?? '');
  return { key, recoveryCodes };
}

