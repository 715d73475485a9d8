import { readableInstant } from '../shared/date-time.js';
import type { MailKind } from './mail-repository.js';

/** A mail as composed, before it is sealed and queued: every mail has a plain-text part and a simple HTML part. */
export interface MailMessage {
  kind: MailKind;
  /** One address, as the users service stores it (normalised). */
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** What a mail says: paragraphs around the one link it is about. */
interface MailContent {
  kind: MailKind;
  to: string;
  subject: string;
  /** Before the link: what happened. */
  lead: readonly string[];
  /** The absolute link (mail-links.ts) and what following it does. */
  action: { label: string; url: string };
  /** A second link, below the first (a reset beside a sign-in). */
  also?: { label: string; url: string };
  /** After it: how long it works, what to do if this was not you. */
  after: readonly string[];
}

const SIGNATURE = 'Store Orders';

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: nothing a recipient or a link holds can open a tag. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);
}

/**
 * The text and HTML parts of a mail from its paragraphs and its link. The
 * HTML is deliberately plain (no styles, no images, no scripts): every
 * value is escaped, and the link is also written out for clients that show
 * no link.
 */
export function composeMail({ kind, to, subject, lead, action, also, after }: MailContent): MailMessage {
  const links = also === undefined ? [action] : [action, also];
  const text = `${[...lead, ...links.map((link) => `${link.label}:\n${link.url}`), ...after, `-- \n${SIGNATURE}`].join('\n\n')}\n`;
  const paragraph = (words: string) => `<p>${escapeHtml(words)}</p>`;
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    ...lead.map(paragraph),
    `<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>`,
    paragraph(`If the link does not open, copy this address into your browser: ${action.url}`),
    ...(also === undefined ? [] : [`<p><a href="${escapeHtml(also.url)}">${escapeHtml(also.label)}</a></p>`, paragraph(`Or copy this address: ${also.url}`)]),
    ...after.map(paragraph),
    paragraph(SIGNATURE),
    '</body></html>',
    '',
  ].join('\n');
  return { kind, to, subject, text, html };
}

/** The mail a password reset sends: the one-time link to /reset-password. */
export function passwordResetMail({ to, link, expiresAt }: { to: string; link: string; expiresAt: string }): MailMessage {
  return composeMail({
    kind: 'password-reset',
    to,
    subject: 'Reset your Store Orders password',
    lead: [`Someone asked to reset the password of the Store Orders portal user ${to}.`],
    action: { label: 'Choose a new password', url: link },
    after: [`The link works once, until ${readableInstant(expiresAt)}.`, 'If you did not ask for this, ignore this mail: your password stays as it is.'],
  });
}

/** The mail that confirms a user's address: the one-time verification link (`change`: to the new address of a change of email). */
export function emailVerificationMail({ to, link, expiresAt, change = false }: { to: string; link: string; expiresAt: string; change?: boolean }): MailMessage {
  return composeMail({
    kind: 'email-verification',
    to,
    subject: 'Confirm your email address for Store Orders',
    lead: [
      change
        ? `Someone asked to make ${to} the address of their Store Orders portal user. It changes when you confirm it.`
        : `Confirm that ${to} is your address for the Store Orders portal.`,
    ],
    action: { label: 'Confirm this address', url: link },
    after: [`The link works once, until ${readableInstant(expiresAt)}.`, change ? 'If you did not ask for this, ignore this mail: nothing changes.' : 'If you did not sign up, ignore this mail.'],
  });
}

/** The mail that tells a user's current address that a change to `newEmail` was asked for; `link`: the portal's sign-in page. */
export function emailChangeNoticeMail({ to, newEmail, link }: { to: string; newEmail: string; link: string }): MailMessage {
  return composeMail({
    kind: 'email-change-notice',
    to,
    subject: 'Your Store Orders address is being changed',
    lead: [`Someone signed in as ${to} asked to change the address of that Store Orders portal user to ${newEmail}. It changes when the link sent to ${newEmail} is followed.`],
    action: { label: 'Sign in to the portal', url: link },
    after: ['If this was not you, sign in, change your password in Settings and sign out everywhere: the change does not happen unless the new address confirms it.'],
  });
}

/** A change to how a user signs in, that `securityNoticeMail` tells them of. */
export type SecurityChange = 'password_changed' | 'password_reset' | 'two_step_enabled' | 'two_step_disabled' | 'recovery_codes_replaced' | 'passkey_added';

const SECURITY_CHANGES: Readonly<Record<SecurityChange, { subject: string; what: string }>> = {
  password_changed: { subject: 'Your Store Orders password was changed', what: 'the password was changed in Settings' },
  password_reset: { subject: 'Your Store Orders password was reset', what: 'the password was reset with a reset link' },
  two_step_enabled: { subject: 'Two-step sign-in is on for your Store Orders account', what: 'two-step sign-in was turned on (an authenticator app)' },
  two_step_disabled: { subject: 'Two-step sign-in is off for your Store Orders account', what: 'two-step sign-in was turned off' },
  recovery_codes_replaced: { subject: 'New Store Orders recovery codes', what: 'new recovery codes were made (the old ones no longer work)' },
  passkey_added: { subject: 'A passkey was added to your Store Orders account', what: 'a passkey was added' },
};

/**
 * The mail that tells a user a way they sign in changed (OWASP ASVS 5.0
 * 6.3.7): what, when, and what to do if it was not them. No link in it
 * signs anyone in: the sign-in page and "Forgot password?".
 */
export function securityNoticeMail({ to, change, at, signInLink, resetLink }: { to: string; change: SecurityChange; at: string; signInLink: string; resetLink: string }): MailMessage {
  const { subject, what } = SECURITY_CHANGES[change];
  return composeMail({
    kind: 'security-notice',
    to,
    subject,
    lead: [`For the Store Orders portal user ${to}, ${what} on ${readableInstant(at)}.`],
    action: { label: 'Sign in to the portal', url: signInLink },
    also: { label: 'If this was not you, reset your password', url: resetLink },
    after: ['If this was you, there is nothing to do. If it was not, reset your password now, then sign out everywhere in Settings and check the audit trail.'],
  });
}

/** The mail an invitation sends: the one-time link that joins `storeName` (as `role`, when given: "Developer"). */
export function invitationMail({ to, link, storeName, expiresAt, role }: { to: string; link: string; storeName: string; expiresAt: string; role?: string }): MailMessage {
  return composeMail({
    kind: 'invitation',
    to,
    subject: `You are invited to ${storeName} on Store Orders`,
    lead: [`You are invited to join ${storeName} on the Store Orders portal${role === undefined ? '' : ` as ${role}`}.`],
    action: { label: 'Accept the invitation', url: link },
    after: [`The link works once, until ${readableInstant(expiresAt)}.`, 'If you do not know this store, ignore this mail.'],
  });
}

/**
 * The mail a sign-up sends to an address no user has: the one-time link that
 * finishes it. Nothing the visitor typed but the address is in it (the
 * store name waits on the page the link opens), so sign-up cannot carry
 * someone's words to a stranger's mailbox.
 */
export function signUpConfirmationMail({ to, link, expiresAt }: { to: string; link: string; expiresAt: string }): MailMessage {
  return composeMail({
    kind: 'sign-up-confirmation',
    to,
    subject: 'Finish creating your Store Orders account',
    lead: [`Someone signed up for the Store Orders portal with ${to}. Follow the link to finish creating the account; you will be asked for the password you chose.`],
    action: { label: 'Finish creating your account', url: link },
    after: [`The link works once, until ${readableInstant(expiresAt)}.`, 'If you did not sign up, ignore this mail: no account is created without it.'],
  });
}

/** The mail a sign-up sends to an address that already has a user, instead of a second account: a link to sign in and one to choose a new password. */
export function accountExistsMail({ to, signInLink, resetLink }: { to: string; signInLink: string; resetLink: string }): MailMessage {
  return composeMail({
    kind: 'sign-up-account-exists',
    to,
    subject: 'You already have a Store Orders account',
    lead: [`Someone tried to sign up for the Store Orders portal with ${to}. You already have an account with this address, so no new one was created.`],
    action: { label: 'Sign in', url: signInLink },
    also: { label: 'Forgot your password? Choose a new one', url: resetLink },
    after: ['If this was not you, there is nothing to do: your account is unchanged.'],
  });
}
