import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { portalOrigin } from '../../src/hosts/portal/portal-origin.js';

const problems = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env, '/srv/app');
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('portal configuration', () => {
  test('when PORTAL_PUBLIC_URL is unset, then the portal is http://localhost:<port> on a loopback HOST and http://HOST:<port> otherwise', () => {
    assert.equal(portalOrigin(loadConfig({}, '/srv/app').portal, '127.0.0.1'), 'http://localhost:3002');
    assert.equal(portalOrigin(loadConfig({ PORTAL_PORT: '8080' }, '/srv/app').portal, 'localhost'), 'http://localhost:8080');
    assert.equal(portalOrigin(loadConfig({}, '/srv/app').portal, '::1'), 'http://localhost:3002');
    assert.equal(portalOrigin(loadConfig({}, '/srv/app').portal, '10.0.0.5'), 'http://10.0.0.5:3002');
    assert.equal(portalOrigin(loadConfig({}, '/srv/app').portal, 'fd00::5'), 'http://[fd00::5]:3002');
    assert.equal(portalOrigin(loadConfig({}, '/srv/app').portal, 'portal.internal'), 'http://portal.internal:3002');
  });

  test('when PORTAL_PUBLIC_URL is set, then it is the origin (a trailing slash dropped), and a path, query or other scheme is refused', () => {
    assert.equal(loadConfig({ PORTAL_PUBLIC_URL: 'https://portal.example.com/' }, '/srv/app').portal.publicUrl, 'https://portal.example.com');
    for (const url of ['https://portal.example.com/app', 'https://portal.example.com/?a=1', 'ftp://portal.example.com', 'portal.example.com']) {
      assert.match(problems({ PORTAL_PUBLIC_URL: url }).join('\n'), /PORTAL_PUBLIC_URL must be an absolute http\(s\) URL without path/, url);
    }
  });

  test('when PORTAL_PORT is off, then the portal host is off but its settings stay for the CLI; when it equals another port, then it is refused', () => {
    assert.equal(loadConfig({ PORTAL_PORT: 'off' }, '/srv/app').portal.port, null);
    assert.match(problems({ PORT: '3002' }).join('\n'), /PORTAL_PORT must differ from PORT, QUICKSTART_PORT and METRICS_PORT \(3002\)/);
    assert.deepEqual(problems({ PORT: '3002', PORTAL_PORT: '5002' }), []);
    assert.deepEqual(problems({ PORT: '0', PORTAL_PORT: '0' }), []);
  });

  test('when the sign-up policy, session and throttle settings are set, then they are read in milliseconds', () => {
    const { portal } = loadConfig(
      { PORTAL_SIGNUP: 'CLOSED', PORTAL_SESSION_IDLE_MINUTES: '5', PORTAL_SESSION_ABSOLUTE_HOURS: '1', PORTAL_THROTTLE_PER_EMAIL: '3', PORTAL_THROTTLE_PER_ADDRESS: '9', PORTAL_THROTTLE_WINDOW_MINUTES: '2' },
      '/srv/app',
    );
    assert.equal(portal.signUp, 'closed');
    assert.deepEqual(portal.session, { idleMs: 300_000, absoluteMs: 3_600_000 });
    assert.deepEqual(portal.throttle, { perEmail: 3, perAddress: 9, windowMs: 120_000 });
    assert.match(problems({ PORTAL_SIGNUP: 'maybe' }).join('\n'), /PORTAL_SIGNUP/);
    assert.match(problems({ PORTAL_SESSION_IDLE_MINUTES: '0' }).join('\n'), /PORTAL_SESSION_IDLE_MINUTES/);
  });
});
