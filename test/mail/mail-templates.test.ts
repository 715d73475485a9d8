/** The mail templates: every mail has a text part and a simple HTML part, the link in both, and nothing a user typed can open a tag. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { portalLink } from '../../src/mail/mail-links.js';
import { composeMail, emailVerificationMail, invitationMail, passwordResetMail } from '../../src/mail/mail-templates.js';

const EXPIRES = '2026-11-24T11:00:00.000Z';

describe('mail templates', () => {
  test('when a portal link is built, then it is absolute on the origin given, its query encoded', () => {
    assert.equal(portalLink('https://portal.example.com', '/reset-password', { token: 'a+b/c=' }), 'https://portal.example.com/reset-password?token=a%2Bb%2Fc%3D');
    assert.equal(portalLink('http://localhost:3002', '/sign-up', { invite: 'x', next: '/keys' }), 'http://localhost:3002/sign-up?invite=x&next=%2Fkeys');
    assert.equal(portalLink('http://localhost:3002', '/'), 'http://localhost:3002/');
  });

  test('when each flow’s mail is composed, then it has its kind and subject, and its link, expiry and signature in the text and the HTML part', () => {
    const link = 'https://portal.example.com/x?token=t1&a=b';
    const mails = [
      [passwordResetMail({ to: 'ann@example.com', link, expiresAt: EXPIRES }), 'password-reset', 'Reset your Store Orders password', 'Choose a new password'],
      [emailVerificationMail({ to: 'ann@example.com', link, expiresAt: EXPIRES }), 'email-verification', 'Confirm your email address for Store Orders', 'Confirm this address'],
      [invitationMail({ to: 'ann@example.com', link, storeName: 'Main Street Pets', expiresAt: EXPIRES }), 'invitation', 'You are invited to Main Street Pets on Store Orders', 'Accept the invitation'],
    ] as const;
    for (const [mail, kind, subject, label] of mails) {
      assert.deepEqual([mail.kind, mail.to, mail.subject], [kind, 'ann@example.com', subject]);
      assert.ok(mail.text.includes(`${label}:\n${link}\n`), mail.text);
      assert.ok(mail.text.includes('The link works once, until 2026-11-24 11:00 UTC.'));
      assert.ok(mail.text.endsWith('-- \nStore Orders\n'), 'a signature after the standard delimiter');
      assert.ok(mail.html.startsWith('<!doctype html>\n<html><head><meta charset="utf-8">'));
      assert.ok(mail.html.includes(`<p><a href="https://portal.example.com/x?token=t1&amp;a=b">${label}</a></p>`), mail.html);
      assert.ok(mail.html.includes('<p>The link works once, until 2026-11-24 11:00 UTC.</p>'));
      assert.doesNotMatch(mail.html, /<script|<style|<img| style=/, 'simple HTML: no script, style or image');
    }
  });

  test('when a text holds markup, then the HTML part escapes it and the text part keeps it as typed', () => {
    const mail = composeMail({
      kind: 'invitation',
      to: 'ann@example.com',
      subject: 'Tom & Jerry\'s <Pets>',
      lead: ['Join <b>"Tom & Jerry\'s"</b>'],
      action: { label: 'Go', url: 'https://portal.example.com/?a="><script>' },
      after: [],
    });
    assert.ok(mail.text.includes('Join <b>"Tom & Jerry\'s"</b>'));
    assert.ok(mail.html.includes('<title>Tom &amp; Jerry&#39;s &lt;Pets&gt;</title>'));
    assert.ok(mail.html.includes('<p>Join &lt;b&gt;&quot;Tom &amp; Jerry&#39;s&quot;&lt;/b&gt;</p>'));
    assert.ok(mail.html.includes('<a href="https://portal.example.com/?a=&quot;&gt;&lt;script&gt;">Go</a>'));
  });

  test('when a store name is anything a user could type, then it adds no tag to the HTML part', () => {
    const tags = (html: string) => html.split('<').length;
    const plain = tags(invitationMail({ to: 'ann@example.com', link: 'https://p.example/', storeName: 'x', expiresAt: EXPIRES }).html);
    fc.assert(
      fc.property(fc.string(), (storeName) => {
        const { html } = invitationMail({ to: 'ann@example.com', link: 'https://p.example/', storeName, expiresAt: EXPIRES });
        assert.equal(tags(html), plain);
      }),
    );
  });
});
