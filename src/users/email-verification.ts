import { portalLink } from '../mail/mail-links.js';
import type { MailService } from '../mail/mail-service.js';
import { emailChangeNoticeMail, emailVerificationMail } from '../mail/mail-templates.js';
import type { Clock } from '../shared/clock.js';
import { verifyPassword } from './passwords.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from './secret-tokens.js';
import { takingAtLeast } from './steady-time.js';
import { withoutPassword, type EmailTokenUse, type SignUpVerification, type User, type UsersRepository } from './users-repository.js';
import { emailProblem, normaliseEmail, type Refusal } from './user-input.js';

/** A verification link (sign-up, Resend, a change of email) works this long. */
const VERIFY_VALID_MS = 24 * 3_600_000;
/**
 * A change of email answers no sooner than this: an address nobody has gets
 * a token and a mail, one another user has gets neither, and the time must
 * not tell them apart.
 */
const CHANGE_REQUEST_MIN_MS = 150;

/**
 * A new verification link to `to` on `origin` and its sealed mail: what
 * storage keeps (the token's SHA-256 only) and queues in the transaction of
 * the change that asks for it.
 */
export async function prepareVerification(
  { mail, clock }: { mail: Pick<MailService, 'prepare'>; clock: Clock },
  { to, accountId, origin, change = false }: { to: string; accountId: number; origin: string; change?: boolean },
): Promise<SignUpVerification> {
  const token = newSecretToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + VERIFY_VALID_MS).toISOString();
  const message = emailVerificationMail({ to, link: portalLink(origin, '/verify-email', { token }), expiresAt, change });
  return { hash: tokenHash(token), createdAt: now.toISOString(), expiresAt, mail: await mail.prepare(message, { accountId }) };
}

/**
 * Email verification and change of email (docs/portal.md, "Email
 * verification"): a sign-up with an invitation queues a link
 * (users-service.ts, through prepareVerification; a store's owner is
 * verified by following their sign-up's link, sign-up/sign-up-service.ts);
 * until it is followed the user may ask for another;
 * with PORTAL_REQUIRE_VERIFIED_EMAIL (`required`) an unverified user may
 * not create API keys. A change of email needs the current password, mails
 * the link to the new address (the change happens only when it is
 * followed) and tells the old one.
 */
export function createEmailVerificationService({
  usersRepository,
  mail,
  clock,
  required,
}: {
  usersRepository: UsersRepository;
  mail: Pick<MailService, 'prepare' | 'send'>;
  clock: Clock;
  required: boolean;
}) {
  return {
    /** PORTAL_REQUIRE_VERIFIED_EMAIL. */
    required,

    /** Whether `user` may do what an unverified address holds back (creating API keys) under this configuration. */
    allows(user: Pick<User, 'emailVerifiedAt'>): boolean {
      return !required || user.emailVerifiedAt !== undefined;
    },

    /** Mails the user a new verification link (earlier ones keep working until they expire); nothing once verified. */
    async resend(user: User, origin: string): Promise<'sent' | 'already_verified'> {
      if (user.emailVerifiedAt !== undefined) return 'already_verified';
      const { mail: queued, ...token } = await prepareVerification({ mail, clock }, { to: user.email, accountId: user.accountId, origin });
      await usersRepository.createTokenWithMail({ ...token, kind: 'verify-email', origin: 'user', userId: user.id, email: user.email }, queued);
      return 'sent';
    },

    /** Follows a verification link, once: what it did, or why not (undefined: not valid, used or expired). */
    async verify(token: string): Promise<EmailTokenUse | 'email_taken' | undefined> {
      if (!isSecretTokenShape(token)) return undefined;
      return usersRepository.useEmailToken(tokenHash(token), clock.now().toISOString());
    },

    /**
     * Asks to change the user's address to `newEmail`, proven by their
     * current password, or by one of their passkeys (`passkeyUserId`: whom
     * a verified assertion proved; OWASP ASVS 5.0 7.5.1). The old address is told; the new one gets a link
     * that makes the change when followed, unless another user has that
     * address: then no link is sent, and the answer, its words and its time
     * are the same (the requester cannot learn who has an address).
     */
    async requestChange(input: { userId: number; currentPassword: string; passkeyUserId?: number; newEmail: string; origin: string }): Promise<{ ok: true; user: User; newEmail: string } | Refusal> {
      const user = await usersRepository.findById(input.userId);
      const byPasskey = user !== undefined && input.passkeyUserId === user.id;
      if (user === undefined || (!byPasskey && !(await verifyPassword(user.passwordHash, input.currentPassword.slice(0, 4 * 1024))))) {
        return { ok: false, field: 'currentPassword', message: 'The current password is incorrect.' };
      }
      const newEmail = normaliseEmail(input.newEmail);
      const badEmail = emailProblem(newEmail);
      if (badEmail !== undefined) return { ok: false, field: 'email', message: badEmail };
      if (newEmail === user.email) return { ok: false, field: 'email', message: 'That is already your address.' };
      await takingAtLeast(CHANGE_REQUEST_MIN_MS, async () => {
        const notice = emailChangeNoticeMail({ to: user.email, newEmail, link: portalLink(input.origin, '/sign-in') });
        const { mail: link, ...token } = await prepareVerification({ mail, clock }, { to: newEmail, accountId: user.accountId, origin: input.origin, change: true });
        if ((await usersRepository.findByEmail(newEmail)) !== undefined) {
          await mail.send(notice, { accountId: user.accountId });
          return;
        }
        const grant = { kind: 'change-email', origin: 'user', userId: user.id, email: newEmail } as const;
        await usersRepository.createTokenWithMail({ ...token, ...grant }, [link, await mail.prepare(notice, { accountId: user.accountId })]);
      });
      return { ok: true, user: withoutPassword(user), newEmail };
    },
  };
}

export type EmailVerificationService = ReturnType<typeof createEmailVerificationService>;
