/**
 * Outgoing mail end to end (docs/mail.md): the mail service queues a sealed
 * mail, the mail engine (background-work.ts, as a server wires it) sends it
 * to a real SMTP server on loopback, and the operator reads its state with
 * `store-orders mail list|show`. Also: retries after a temporary refusal, a
 * mail given up, credentials refused and a silent server, none of which may
 * put the SMTP password in a log line, an error or the database; and the
 * local outbox when SMTP_URL is unset.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { createMailEngine } from '../../src/background-work.js';
import type { MailRecord } from '../../src/mail/mail-repository.js';
import { portalLink } from '../../src/mail/mail-links.js';
import { passwordResetMail } from '../../src/mail/mail-templates.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { testOutages } from '../support/app.js';
import { cliOn } from '../support/cli.js';
import { testConfig, testServices } from '../support/container.js';
import { capturingLogger } from '../support/logs.js';
import { waitFor } from '../support/process.js';
import { readSql } from '../support/raw-sql.js';
import { startSmtpServer } from '../support/smtp.js';

const USER = 'mailer';
/** Characters a URL must percent-encode, and that must never show up anywhere. */
const PASSWORD = 'Sm7p:p@ss/w%rd';
/** Stands for a reset token: what a mail's link carries and the database must never hold in clear. */
const TOKEN = 'rst_Q2hvb3NlQU5ld1Bhc3N3b3JkUGxlYXNlMTIzNDU2';
const LINK = portalLink('http://localhost:3002', '/reset-password', { token: TOKEN });

/**
 * A database the CLI also opens, the services over it and the mail engine
 * started as a server starts it; both stopped when the test ends.
 */
async function setUp(t: TestContext, env: Record<string, string>) {
  const cli = cliOn(t, env);
  const config = testConfig(cli.env);
  const storage = openStorage(config.database);
  await storage.migrate();
  const services = testServices(storage, { config });
  const { logger, logs } = capturingLogger();
  const engine = createMailEngine({ config, storage, services }, logger, testOutages(logger, storage));
  t.after(async () => {
    await engine.stop();
    await storage.close();
  });
  engine.start();
  const send = () => services.mail.send(passwordResetMail({ to: 'ann@example.com', link: LINK, expiresAt: '2026-11-24T11:00:00.000Z' }));
  const find = async (id: string): Promise<MailRecord | undefined> => (await services.mail.list({ limit: 100 })).find((mail) => mail.id === id);
  /** Everything the database holds about mail, as text. */
  const stored = async () => JSON.stringify(await readSql(config.database, 'SELECT * FROM mail'));
  return { cli, config, services, logs, send, find, stored };
}

function assertNoSecret(where: string, text: string, secrets: readonly string[]): void {
  for (const secret of secrets) assert.equal(text.includes(secret), false, `${where} holds ${JSON.stringify(secret)}`);
}

describe('mail through SMTP', () => {
  test('when a mail is queued, then the engine hands it to the SMTP server at once: From, To, Subject, a text and an HTML part, the link in both', async (t) => {
    const smtp = await startSmtpServer(t, { user: USER, password: PASSWORD });
    // No poll for an hour: only the commit's hand-off can wake the engine.
    const { send, find, logs, stored } = await setUp(t, { SMTP_URL: smtp.url, MAIL_POLL_INTERVAL_MS: '3600000' });
    const id = await send();
    await waitFor(() => smtp.arrived.length === 1, 'the mail to arrive');
    const [arrived] = smtp.arrived;
    assert.ok(arrived);
    assert.match(arrived.from, /Store Orders.*<no-reply@localhost>/);
    assert.equal(arrived.to, 'ann@example.com');
    assert.equal(arrived.subject, 'Reset your Store Orders password');
    assert.equal(arrived.messageId, `<${id}@localhost>`);
    assert.equal(arrived.user, USER, 'signed in with the credentials of SMTP_URL');
    assert.ok(arrived.text.includes(`Choose a new password:\n${LINK}`), arrived.text);
    assert.ok(arrived.html.includes(`<a href="${LINK}">Choose a new password</a>`), arrived.html);
    await waitFor(async () => (await find(id))?.status === 'sent', 'the mail to be recorded as sent');
    const record = await find(id);
    assert.deepEqual([record?.channel, record?.attempts, record?.lastError], ['smtp', 1, undefined]);
    const database = await stored();
    assertNoSecret('the mail table', database, [TOKEN, 'Choose a new password', PASSWORD]);
    assert.match(database, /"sealed_body":"v1\./, 'the body is sealed');
    assertNoSecret('the log', logs.join(''), [PASSWORD, encodeURIComponent(PASSWORD), TOKEN]);
  });

  test('when the SMTP server refuses with 451, then the attempt is retried later; mail list shows it pending with the reason until it is sent', async (t) => {
    const smtp = await startSmtpServer(t, { user: USER, password: PASSWORD });
    smtp.refuse(Infinity);
    const { cli, send, find, logs, stored } = await setUp(t, { SMTP_URL: smtp.url, MAIL_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms', MAIL_POLL_INTERVAL_MS: '20' });
    const id = await send();
    await waitFor(async () => ((await find(id))?.attempts ?? 0) >= 2 && (await find(id))?.lastError !== undefined, 'two refused attempts');

    const listed = await cli.run('mail', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    const line = listed.stdout.split('\n').find((text) => text.startsWith(id)) ?? '';
    assert.match(line, /\tpending, next attempt \d{4}-.*\tpassword-reset\tann@example\.com\t\d+ attempts\tcreated .*\tlast error: The mail server refused the mail.*451.*Mailbox busy/);
    const json = JSON.parse((await cli.run('mail', 'list', '--json', '--status', 'pending')).stdout) as { mail: MailRecord[] };
    assert.deepEqual(json.mail.map((mail) => [mail.id, mail.status]), [[id, 'pending']]);

    smtp.refuse(0);
    await waitFor(async () => (await find(id))?.status === 'sent', 'the retry to go through');
    assert.equal(smtp.arrived.length, 1);
    const record = await find(id);
    assert.equal(record?.attempts, smtp.refused() + 1);
    assert.equal(record?.lastError, undefined);
    const retried = logs.filter((entry) => entry.includes('delivery failed; will retry'));
    assert.equal(retried.length, smtp.refused(), 'each failed attempt is logged once');
    assert.match(retried[0] ?? '', /451/);
    assertNoSecret('the log', logs.join(''), [PASSWORD, encodeURIComponent(PASSWORD), TOKEN]);
    assertNoSecret('the mail table', await stored(), [PASSWORD, TOKEN]);
  });

  test('when the retry schedule is spent, then the mail is failed, logged as given up once, and mail list --status failed shows it', async (t) => {
    const smtp = await startSmtpServer(t, { user: USER, password: PASSWORD });
    smtp.refuse(Infinity);
    const { cli, send, find, logs } = await setUp(t, { SMTP_URL: smtp.url, MAIL_RETRY_SCHEDULE: '50ms', MAIL_POLL_INTERVAL_MS: '20' });
    const id = await send();
    await waitFor(async () => (await find(id))?.status === 'failed', 'the mail to be given up');
    assert.equal((await find(id))?.attempts, 2);
    assert.equal(logs.filter((entry) => entry.includes('delivery given up')).length, 1);
    const listed = await cli.run('mail', 'list', '--status', 'failed');
    assert.match(listed.stdout, new RegExp(`^${id}\\tfailed\\tpassword-reset\\tann@example\\.com\\t2 attempts\\t.*451`, 'm'));
  });

  test('when the SMTP server refuses the credentials, then the mail waits with the server\'s reason, and the wrong password is nowhere', async (t) => {
    const smtp = await startSmtpServer(t, { user: USER, password: PASSWORD });
    const wrong = 'wr0ng-Secret-Password';
    const url = smtp.url.replace(encodeURIComponent(PASSWORD), wrong);
    const { send, find, logs, stored } = await setUp(t, { SMTP_URL: url });
    const id = await send();
    await waitFor(async () => (await find(id))?.lastError !== undefined, 'the refused attempt to be recorded');
    const record = await find(id);
    assert.equal(record?.status, 'pending');
    assert.match(record?.lastError ?? '', /^The mail server refused the mail( at AUTH [A-Z]+)?: 535/);
    assert.equal(smtp.arrived.length, 0);
    assertNoSecret('the log', logs.join(''), [wrong, PASSWORD]);
    assertNoSecret('the mail table', await stored(), [wrong, PASSWORD]);
  });

  test('when the SMTP server never answers, then the attempt ends at MAIL_TIMEOUT_MS as a failure to retry', async (t) => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const { port } = silent.address() as AddressInfo;
    const { send, find } = await setUp(t, { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_TIMEOUT_MS: '1000' });
    const started = Date.now();
    const id = await send();
    await waitFor(async () => (await find(id))?.lastError !== undefined, 'the attempt to time out');
    assert.equal((await find(id))?.lastError, 'The mail server did not answer in time.');
    assert.ok(Date.now() - started < 5000, 'bounded by MAIL_TIMEOUT_MS, not by the server');
  });
});

describe('mail without SMTP_URL: the local outbox', () => {
  test('when a mail is queued, then it is kept in the outbox (sent, channel outbox), mail list shows it and mail show opens it; the database holds it sealed', async (t) => {
    const { cli, send, find, stored, config } = await setUp(t, { MAIL_POLL_INTERVAL_MS: '3600000' });
    assert.equal(config.mail.smtp, null);
    const id = await send();
    await waitFor(async () => (await find(id))?.status === 'sent', 'the mail to be kept in the outbox');
    assert.equal((await find(id))?.channel, 'outbox');

    const listed = await cli.run('mail', 'list');
    assert.match(listed.stdout, new RegExp(`^${id}\\tsent \\(outbox\\) \\d{4}-[^\\t]+\\tpassword-reset\\tann@example\\.com\\t1 attempt\\tcreated `, 'm'));

    const shown = await cli.run('mail', 'show', id);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^From: {4}Store Orders <no-reply@localhost>\nTo: {6}ann@example\.com\nSubject: Reset your Store Orders password\n/);
    assert.ok(shown.stdout.includes(`Choose a new password:\n${LINK}`), shown.stdout);
    const json = JSON.parse((await cli.run('mail', 'show', id, '--json')).stdout) as { text: string; html: string; status: string; channel: string };
    assert.deepEqual([json.status, json.channel], ['sent', 'outbox']);
    assert.ok(json.html.includes(`<a href="${LINK}">`));
    assert.ok(json.text.includes(LINK));

    assertNoSecret('the mail table', await stored(), [TOKEN, 'Choose a new password']);
    const unknown = await cli.run('mail', 'show', 'no-such-mail');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no mail has the id "no-such-mail"/);
  });
});
