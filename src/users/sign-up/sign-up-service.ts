import { ACCOUNT_NAME_MAX } from '../../accounts/accounts-service.js';
import { portalLink } from '../../mail/mail-links.js';
import type { MailService } from '../../mail/mail-service.js';
import { accountExistsMail, signUpConfirmationMail } from '../../mail/mail-templates.js';
import type { Clock } from '../../shared/clock.js';
import { textProblem } from '../../shared/user-text.js';
import type { AttemptThrottle } from '../attempt-throttle.js';
import { hashPassword, passwordProblem, verifyPassword } from '../passwords.js';
import type { BreachedPasswordCheck } from '../breached-passwords.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from '../secret-tokens.js';
import { takingAtLeast } from '../steady-time.js';
import { emailProblem, normaliseEmail, type Refusal } from '../user-input.js';
import type { User, UsersRepository } from '../users-repository.js';
import type { SignUpPolicy } from '../users-service.js';
import type { SignUpsRepository } from './sign-ups-repository.js';

/**
 * A sign-up's link works this long: a day, as a verification link does.
 * Mail can be late (greylisting, a phone that syncs later), and the link
 * alone creates nothing: following it also asks for the password chosen on
 * the form.
 */
export const SIGN_UP_VALID_MS = 24 * 3_600_000;

/**
 * The most mail sign-up sends one address per window, whether it has a user
 * or not: anyone may type any address on the form, and it must not become a
 * way to fill a stranger's mailbox. Counted per address (a keyed hash of it)
 * in the database, for every process; over it, the form answers the same and
 * nothing is sent (an earlier link keeps working).
 */
export const SIGN_UP_MAIL_BUDGET = { limit: 5, windowMs: 3_600_000 } as const;

/** The attempt throttle's scope of that budget (attempt-throttle.ts `spend`). */
const MAIL_BUDGET_SCOPE = 'sign-up-mail';

/**
 * Once the password is hashed (in every case), the rest of a sign-up answers
 * no sooner than this: a new address's sign-up and mail are written in one
 * transaction, a known one's mail alone, and the time must not tell them
 * apart (a write takes a few milliseconds).
 */
const SIGN_UP_WRITE_MIN_MS = 100;

/** What following a link did not do, for the page to word. */
export type SignUpLinkFailure = 'invalid' | 'email_taken' | 'closed' | 'wrong_password';

/**
 * Self-service sign-up that does not tell who has an account (docs/portal.md,
 * "Sign-up"; OWASP ASVS 5.0 6.3.8, 6.4.1): the form answers every address
 * alike, "check your email". A new address gets a one-time link and its
 * sign-up waits, its password hashed, until the link is followed with that
 * password; then the account, its owner (verified: the link proved the
 * mailbox) and the session exist. An address that has a user gets a mail
 * saying so, with a link to sign in and one to reset the password, and no
 * second account. (A sign-up with an invitation is the users service's.)
 */
export function createSignUpService({
  signUpsRepository,
  usersRepository,
  throttle,
  mail,
  clock,
  policy,
  breachedPasswords,
}: {
  signUpsRepository: SignUpsRepository;
  usersRepository: Pick<UsersRepository, 'findByEmail'>;
  throttle: Pick<AttemptThrottle, 'spend'>;
  mail: Pick<MailService, 'prepare' | 'send'>;
  clock: Clock;
  policy: SignUpPolicy;
  /** PORTAL_BREACHED_PASSWORDS_URL's check; absent: none. */
  breachedPasswords?: BreachedPasswordCheck;
}) {
  return {
    /**
     * Takes the form: refusals of what was typed (the address's shape, the
     * store name, the password's rules: none tells whether the address has
     * a user) come back at once; otherwise the answer is the same for every
     * address, with the id of the mail this sign-up queued (the development
     * mailbox shows it; when nothing was queued, an id that names no mail).
     * Every accepted sign-up costs one Argon2 hash, then at least
     * SIGN_UP_WRITE_MIN_MS, and one use of the address's mail budget.
     * Links go to `/sign-up/confirm` on `origin`.
     */
    async start(input: { email: string; password: string; storeName: string; origin: string }): Promise<{ ok: true; email: string; mailId: string } | Refusal> {
      const email = normaliseEmail(input.email);
      const badEmail = emailProblem(email);
      if (badEmail !== undefined) return { ok: false, field: 'email', message: badEmail };
      if (policy === 'closed') return { ok: false, field: 'form', message: 'Sign-up is by invitation only; ask your operator for a link.' };
      const storeName = input.storeName.trim();
      const badStoreName = textProblem('Store name', storeName, { min: 1, max: ACCOUNT_NAME_MAX });
      if (badStoreName !== undefined) return { ok: false, field: 'storeName', message: badStoreName };
      const badPassword = await passwordProblem(input.password, { email, storeName }, breachedPasswords);
      if (badPassword !== undefined) return { ok: false, field: 'password', message: badPassword };
      const passwordHash = await hashPassword(input.password);
      const mailId = await takingAtLeast(SIGN_UP_WRITE_MIN_MS, async () => {
        const found = await usersRepository.findByEmail(email);
        const allowed = await throttle.spend(MAIL_BUDGET_SCOPE, email, SIGN_UP_MAIL_BUDGET);
        const now = clock.now();
        if (found !== undefined) {
          const message = accountExistsMail({ to: email, signInLink: portalLink(input.origin, '/sign-in'), resetLink: portalLink(input.origin, '/forgot-password') });
          // A disabled user is told nothing, as "Forgot password?" does.
          if (!allowed || found.disabledAt !== undefined) return (await mail.prepare(message)).id;
          return mail.send(message, { accountId: found.accountId });
        }
        const token = newSecretToken();
        const expiresAt = new Date(now.getTime() + SIGN_UP_VALID_MS).toISOString();
        const queued = await mail.prepare(signUpConfirmationMail({ to: email, link: portalLink(input.origin, '/sign-up/confirm', { token }), expiresAt }));
        if (allowed) await signUpsRepository.start({ tokenHash: tokenHash(token), email, passwordHash, storeName, createdAt: now.toISOString(), expiresAt }, queued);
        return queued.id;
      });
      return { ok: true, email, mailId };
    },

    /** What a sign-up's link opens: its address and store name while it is pending, and whether a user has the address by now. undefined: not valid. */
    async peek(token: string): Promise<{ email: string; storeName: string; accountExists: boolean } | undefined> {
      const pending = isSecretTokenShape(token) ? await signUpsRepository.peek(tokenHash(token), clock.now().toISOString()) : undefined;
      if (pending === undefined) return undefined;
      return { email: pending.email, storeName: pending.storeName, accountExists: (await usersRepository.findByEmail(pending.email)) !== undefined };
    },

    /**
     * Follows a sign-up's link with the password chosen on the form, once:
     * the account, its owner and their membership are created in one
     * transaction that uses the link up. The password is asked so that
     * whoever opens the mail must also be whoever filled in the form: a
     * sign-up someone else made with this address (and their password)
     * cannot be finished by its owner clicking the link, and a mail scanner
     * that follows links finishes nothing. A wrong password leaves the link
     * usable; one Argon2 verification is run whenever the link is valid.
     */
    async complete(input: { token: string; password: string }): Promise<{ ok: true; user: User; storeName: string } | { ok: false; reason: SignUpLinkFailure }> {
      if (policy === 'closed') return { ok: false, reason: 'closed' };
      const hash = isSecretTokenShape(input.token) ? tokenHash(input.token) : undefined;
      const pending = hash === undefined ? undefined : await signUpsRepository.peek(hash, clock.now().toISOString());
      if (hash === undefined || pending === undefined) return { ok: false, reason: 'invalid' };
      if (!(await verifyPassword(pending.passwordHash, input.password.slice(0, 4 * 1024)))) return { ok: false, reason: 'wrong_password' };
      const completed = await signUpsRepository.complete(hash, clock.now().toISOString());
      if (completed === undefined) return { ok: false, reason: 'invalid' };
      if (completed === 'email_taken') return { ok: false, reason: 'email_taken' };
      return { ok: true, ...completed };
    },
  };
}

export type SignUpService = ReturnType<typeof createSignUpService>;
