/** The Sessions list's device description: a few known browsers and systems, and only fixed names out (fast-check). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeUserAgent } from '../../src/shared/user-agent.js';

const NAMES = /^(?:(?:Edge|Opera|Samsung Internet|Firefox|Chrome|Safari|curl)(?: on (?:iOS|Android|ChromeOS|Windows|macOS|Linux))?|iOS|Android|ChromeOS|Windows|macOS|Linux|Unknown browser)$/;

test('when a common browser’s User-Agent is described, then it reads as "<browser> on <system>"', () => {
  const cases: [string, string][] = [
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Linux'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on Windows'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.87', 'Edge on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1', 'Chrome on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
    ['Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36', 'Samsung Internet on Android'],
    ['Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', 'Chrome on ChromeOS'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 OPR/111.0.0.0', 'Opera on Windows'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36', 'Chrome on Linux'],
    ['curl/8.5.0', 'curl'],
    ['', 'Unknown browser'],
  ];
  for (const [userAgent, expected] of cases) assert.equal(describeUserAgent(userAgent), expected, userAgent);
  assert.equal(describeUserAgent(undefined), 'Unknown browser');
});

test('when any User-Agent is described, then the answer is one of the fixed names: nothing the client sent is echoed', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 2000 }), (userAgent) => {
      assert.match(describeUserAgent(userAgent), NAMES);
    }),
    { numRuns: 1000 },
  );
});
