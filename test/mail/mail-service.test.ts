/** The mail service's own rules: one recipient, no header injection, and a body only its own box opens. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { composeMail } from '../../src/mail/mail-templates.js';
import { testConfig, testServices } from '../support/container.js';
import { rejectsWithCode } from '../support/storage-contract.js';
import { sqliteBackend } from '../support/storage.js';

const message = (to: string, subject = 'Hello') => composeMail({ kind: 'invitation', to, subject, lead: ['Hi'], action: { label: 'Go', url: 'https://p.example/' }, after: [] });

describe('mail service', () => {
  test('when a mail would go to no address, several, or carry a line break in a header, then it is refused and nothing is queued', async (t) => {
    const { storage } = await sqliteBackend.freshDatabase(t);
    const services = testServices(storage);
    for (const to of ['ann', 'ann@example.com, bob@example.com', 'ann@example.com\r\nBcc: eve@example.com', 'Ann <ann@example.com>', '']) {
      await assert.rejects(services.mail.send(message(to)), rejectsWithCode('validation_failed'), JSON.stringify(to));
    }
    await assert.rejects(services.mail.send(message('ann@example.com', 'Hi\r\nBcc: eve@example.com')), rejectsWithCode('validation_failed'));
    assert.deepEqual(await services.mail.list({ limit: 10 }), []);
  });

  test('when a mail is queued, then show opens its body; a mail to someone else is not shown to a recipient-bound caller; another key cannot open it', async (t) => {
    const { storage } = await sqliteBackend.freshDatabase(t);
    const services = testServices(storage, { config: testConfig({ MAIL_SECRETS_KEY: 'a'.repeat(40) }) });
    const id = await services.mail.send(message('ann@example.com'));
    const shown = await services.mail.show(id);
    assert.equal(shown?.mail.recipient, 'ann@example.com');
    assert.ok(shown?.body.text.includes('Go:\nhttps://p.example/'));
    assert.equal((await services.mail.show(id, { recipient: 'ann@example.com' }))?.mail.id, id);
    assert.equal(await services.mail.show(id, { recipient: 'bob@example.com' }), undefined);
    assert.equal(await services.mail.show('no-such-mail'), undefined);
    const otherKey = testServices(storage, { config: testConfig({ MAIL_SECRETS_KEY: 'b'.repeat(40) }) });
    await assert.rejects(otherKey.mail.show(id), 'sealed with MAIL_SECRETS_KEY: another key cannot open it');
  });
});
