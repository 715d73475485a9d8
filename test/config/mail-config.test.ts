/** SMTP_URL, MAIL_FROM and the mail engine's settings (docs/mail.md): parsed into parts; a refusal never quotes a password. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { parseSmtpUrl } from '../../src/config/config-formats.js';

describe('mail configuration', () => {
  test('when SMTP_URL is smtp:// or smtps://, then it is read into host, port, TLS and percent-decoded credentials, with the usual ports by default', () => {
    assert.deepEqual(loadConfig({ SMTP_URL: 'smtp://mailer:p%40ss%3Aw%2Frd@mail.example.com:2525' }).mail.smtp, {
      secure: false,
      host: 'mail.example.com',
      port: 2525,
      user: 'mailer',
      password: 'p@ss:w/rd',
    });
    assert.deepEqual(parseSmtpUrl('smtps://relay.example.com'), { secure: true, host: 'relay.example.com', port: 465 });
    assert.deepEqual(parseSmtpUrl('smtp://127.0.0.1/'), { secure: false, host: '127.0.0.1', port: 587 });
    assert.deepEqual(parseSmtpUrl('smtp://[::1]:1025'), { secure: false, host: '::1', port: 1025 });
    assert.deepEqual(parseSmtpUrl('smtp://apikey@smtp.example.com'), { secure: false, host: 'smtp.example.com', port: 587, user: 'apikey' });
  });

  test('when SMTP_URL is not an smtp(s) URL of a host alone, then the start is refused naming it, never quoting it', () => {
    for (const SMTP_URL of ['http://user:hunter2@mail.example.com', 'smtp://user:hunter2@mail.example.com/path', 'smtp://user:hunter2@mail.example.com?tls=off', 'smtp://:hunter2@mail.example.com', 'smtp://user:hunter2%zz@mail.example.com', 'hunter2']) {
      assert.throws(
        () => loadConfig({ SMTP_URL }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, SMTP_URL);
          assert.match(error.message, /SMTP_URL must be smtp:\/\/\[user:password@\]host\[:port\] or smtps:\/\//);
          assert.equal(error.message.includes('hunter2'), false, SMTP_URL);
          return true;
        },
      );
    }
  });

  test('when any text is given as SMTP_URL, then a refusal never contains it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), (text) => {
        const secret = `S3cret${text}`;
        try {
          loadConfig({ SMTP_URL: `smtp://u:${secret}` });
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          assert.equal(error.message.includes(secret), false);
        }
      }),
    );
  });

  test('when MAIL_FROM, the schedule, the timeout and the key are set, then they are read; a sender with a line break or no address is refused', () => {
    const config = loadConfig({ MAIL_FROM: '  Main Street Pets <orders@pets.example> ', MAIL_RETRY_SCHEDULE: '1s, 1m', MAIL_TIMEOUT_MS: '5000', MAIL_POLL_INTERVAL_MS: '250', MAIL_SECRETS_KEY: 'm'.repeat(40) });
    assert.deepEqual(config.mail, {
      smtp: null,
      from: 'Main Street Pets <orders@pets.example>',
      timeoutMs: 5000,
      retryScheduleMs: [1000, 60_000],
      pollIntervalMs: 250,
      secretsKey: 'm'.repeat(40),
    });
    assert.equal(loadConfig({ MAIL_FROM: 'orders@pets.example' }).mail.from, 'orders@pets.example');
    for (const MAIL_FROM of ['Pets <orders@pets.example>\r\nBcc: x@evil.example', 'Main Street Pets', '"Pets" <orders@pets.example>']) {
      assert.throws(() => loadConfig({ MAIL_FROM }), /MAIL_FROM must be an address/, MAIL_FROM);
    }
    assert.throws(() => loadConfig({ MAIL_RETRY_SCHEDULE: '5s,later', MAIL_SECRETS_KEY: 'short secret' }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /MAIL_RETRY_SCHEDULE/);
      assert.match(error.message, /MAIL_SECRETS_KEY/);
      assert.equal(error.message.includes('short secret'), false);
      return true;
    });
  });
});
