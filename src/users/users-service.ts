import type { AccountsService } from '../accounts/accounts-service.js';
import { portalLink } from '../mail/mail-links.js';
import type { MailService } from '../mail/mail-service.js';
import { passwordResetMail, securityNoticeMail, type SecurityChange } from '../mail/mail-templates.js';
import type { Clock } from '../shared/clock.js';
import { prepareVerification } from './email-verification.js';
import { emailProblem, normaliseEmail, type Refusal } from './user-input.js';
import { createDummyHash, hashPassword, passwordProblem, verifyPassword, type PasswordOwner } from './passwords.js';
import type { PasskeysRepository } from './passkeys-repository.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from './secret-tokens.js';
import type { SessionsService } from './sessions-service.js';
import { takingAtLeast } from './steady-time.js';
import { withoutPassword, type OneTimeTokenOrigin, type User, type UsersRepository } from './users-repository.js';
import type { Invitation, TeamRepository } from './team/team-repository.js';
import type { TwoStepService } from './two-step/two-step-service.js';
import type { BreachedPasswordCheck } from './breached-passwords.js';

export type SignUpPolicy = 'open' | 'closed';

const RESET_VALID_MS = 3_600_000;
/**
 * A "Forgot password?" request answers no sooner than this: a known
 * address's token and mail are written, an unknown one's are not, and the
 * time must not tell them apart (a write takes a few milliseconds).
 */
const RESET_REQUEST_MIN_MS = 150;
/** Where the mail an unknown address would have had is addressed, to seal it all the same (it is never queued). */
const NOBODY = 'nobody@invalid';

/**
 * An invitation's sign-up with an address that already has a user: a
 * generic answer, after the same Argon2 hash, throttled like a sign-in.
 * Unlike the sign-up form (sign-up/sign-up-service.ts), which answers every
 * address alike, it does tell that the address is taken, but only to the
 * holder of a valid invitation link (docs/portal.md, "Enumeration").
 */
const EMAIL_TAKEN: Refusal = { ok: false, field: 'form', message: 'An account could not be created with these details. If you already have one, sign in.' };
const RESET_INVALID: Refusal = { ok: false, field: 'form', message: 'This reset link is not valid any more; ask for a new one.' };
const PASSKEY_REQUIRED: Refusal = { ok: false, field: 'passkey', message: 'Confirm the reset with one of your passkeys.' };
const CODE_REQUIRED: Refusal = { ok: false, field: 'code', message: 'Type the code your authenticator app shows now, or one of your recovery codes.' };
const INVITATION_INVALID: Refusal = { ok: false, field: 'form', message: 'This invitation link is not valid any more; ask for a new one.' };

export function createUsersService({
  usersRepository,
  passkeysRepository,
  twoStep,
  breachedPasswords,
  teamRepository,
  accounts,
  sessions,
  mail,
  clock,
  signUp: signUpPolicy,
}: {
  usersRepository: UsersRepository;
  passkeysRepository: Pick<PasskeysRepository, 'listByUser'>;
  /** Two-step sign-in: a reset the user asked for needs their code when it is on. */
  twoStep: Pick<TwoStepService, 'isOn' | 'verify' | 'endPendingSignIns'>;
  /** PORTAL_BREACHED_PASSWORDS_URL's check of every new password; absent: none. */
  breachedPasswords?: BreachedPasswordCheck;
  /** Invitations: a new user who accepts one joins its account with its role. */
  teamRepository: Pick<TeamRepository, 'peekInvitation'>;
  accounts: AccountsService;
  mail: Pick<MailService, 'prepare' | 'send'>;
  sessions: SessionsService;
  clock: Clock;
  signUp: SignUpPolicy;
}) {
  let dummyHash: Promise<string> | undefined;
  const nowIso = () => clock.now().toISOString();

  return {
    signUpPolicy,

    /**
     * A sign-up with an invitation (`/sign-up?invite=`): creates the user as
     * a member of the invitation's account with its role, the invitation
     * used in the user's own transaction, together with a link to verify the
     * address (to `/verify-email` on `origin`). An invitation mailed to an
     * address is for that address only. The password is hashed before the
     * address is looked up, so a taken one costs the same Argon2 hash. (A
     * store and its owner come only from the sign-up service, once its
     * mailed link is followed: sign-up/sign-up-service.ts.)
     */
    async acceptInvitationAsNewUser(input: { email: string; password: string; inviteToken: string; origin: string }): Promise<{ ok: true; user: User } | Refusal> {
      const email = normaliseEmail(input.email);
      const badEmail = emailProblem(email);
      if (badEmail !== undefined) return { ok: false, field: 'email', message: badEmail };
      const joins = await peekInvite(input.inviteToken);
      if (joins === undefined) return INVITATION_INVALID;
      if (joins.email !== undefined && joins.email !== email) return { ok: false, field: 'email', message: `This invitation was sent to ${joins.email}: sign up with that address.` };
      // The store already has a name: the password must not be that one either.
      const badPassword = await passwordProblem(input.password, { email, storeName: (await accounts.requireAccount(joins.accountId)).name }, breachedPasswords);
      if (badPassword !== undefined) return { ok: false, field: 'password', message: badPassword };
      const passwordHash = await hashPassword(input.password);
      if ((await usersRepository.findByEmail(email)) !== undefined) return EMAIL_TAKEN;
      // The link is used in the user's own transaction: a sign-up that fails (the email taken meanwhile) leaves it usable.
      const verification = await prepareVerification({ mail, clock }, { to: email, accountId: joins.accountId, origin: input.origin });
      const created = await usersRepository.createInvited(tokenHash(input.inviteToken), nowIso(), { email, passwordHash, createdAt: nowIso() }, verification);
      if (created === 'invitation_invalid') return INVITATION_INVALID;
      if (created === 'email_taken') return EMAIL_TAKEN;
      return { ok: true, user: created.user };
    },

    /**
     * The user whose email and password these are, or a failure: unknown
     * email, wrong password and disabled user alike for the visitor. Exactly
     * one Argon2 verification runs whatever the outcome (against a dummy
     * hash for an unknown email), so the time taken does not tell them apart
     * either. A failure for an existing user names them (`attempted`) for
     * the account's audit trail only; it must never reach the page.
     */
    async signIn(input: { email: string; password: string }): Promise<{ ok: true; user: User } | { ok: false; attempted?: User }> {
      const email = normaliseEmail(input.email);
      const found = emailProblem(email) === undefined ? await usersRepository.findByEmail(email) : undefined;
      dummyHash ??= createDummyHash();
      const matches = await verifyPassword(found?.passwordHash ?? (await dummyHash), input.password.slice(0, 4 * 1024));
      if (found === undefined) return { ok: false };
      if (!matches || found.disabledAt !== undefined) return { ok: false, attempted: withoutPassword(found) };
      return { ok: true, user: withoutPassword(found) };
    },

    /** The user with that email (normalised), disabled or not. */
    async findUserByEmail(email: string): Promise<User | undefined> {
      const found = await usersRepository.findByEmail(normaliseEmail(email));
      return found === undefined ? undefined : withoutPassword(found);
    },

    /** The user with that id, unless they were disabled. */
    async findUser(userId: number): Promise<User | undefined> {
      const found = await usersRepository.findById(userId);
      return found === undefined || found.disabledAt !== undefined ? undefined : withoutPassword(found);
    },

    /**
     * Tells the user by mail that a way they sign in changed (OWASP ASVS 5.0
     * 6.3.7): two-step sign-in on or off, new recovery codes, a passkey
     * added. Queued just after the change (a password change or reset
     * queues its notice in its own transaction instead).
     */
    async notifySecurityChange(userId: number, change: SecurityChange, origin: string): Promise<void> {
      const user = await usersRepository.findById(userId);
      if (user !== undefined) await mail.send(securityNotice(user, change, origin), { accountId: user.accountId });
    },

    /** Sets a new password after checking the current one; every other session of the user ends; the user is told by mail (links on `origin`). */
    async changePassword(input: { userId: number; current: string; next: string; keepSession: string; origin: string }): Promise<{ ok: true } | Refusal> {
      const user = await usersRepository.findById(input.userId);
      if (user === undefined || !(await verifyPassword(user.passwordHash, input.current))) {
        return { ok: false, field: 'currentPassword', message: 'The current password is incorrect.' };
      }
      const badPassword = await passwordProblem(input.next, await passwordOwner(user), breachedPasswords);
      if (badPassword !== undefined) return { ok: false, field: 'password', message: badPassword };
      // Also ends every outstanding reset link of the user (in the same transaction).
      const notice = await mail.prepare(securityNotice(user, 'password_changed', input.origin), { accountId: user.accountId });
      await usersRepository.setPasswordHash(user.id, await hashPassword(input.next), notice);
      await sessions.endAll(user.id, input.keepSession);
      await twoStep.endPendingSignIns(user.id);
      return { ok: true };
    },

    async listUsers(): Promise<User[]> {
      return usersRepository.list();
    },

    /** Disables the user and ends their sessions; undefined when no user has that email. */
    async disableUser(email: string): Promise<User | undefined> {
      const user = await usersRepository.findByEmail(normaliseEmail(email));
      if (user === undefined) return undefined;
      const at = nowIso();
      await usersRepository.disable(user.id, at);
      return { ...withoutPassword(user), disabledAt: user.disabledAt ?? at };
    },

    /** A one-time password-reset token for the user, valid 1 hour, made by the operator (no passkey asked); undefined when no user has that email. */
    async createPasswordReset(email: string): Promise<{ token: string; expiresAt: string; user: User } | undefined> {
      const found = await usersRepository.findByEmail(normaliseEmail(email));
      if (found === undefined) return undefined;
      return { ...(await issueToken({ kind: 'reset', userId: found.id }, RESET_VALID_MS)), user: withoutPassword(found) };
    },

    /**
     * "Forgot password?": mails the user with that email a one-time reset
     * link (valid 1 hour) to `/reset-password` on `origin`, the token and its
     * mail written in one transaction. Says nothing, and takes the same time,
     * whether or not the email has a user (a disabled user gets nothing): the
     * link and the sealed mail are made either way, and the answer waits out
     * RESET_REQUEST_MIN_MS.
     */
    async requestPasswordReset({ email, origin }: { email: string; origin: string }): Promise<void> {
      await takingAtLeast(RESET_REQUEST_MIN_MS, async () => {
        const normalised = normaliseEmail(email);
        const found = emailProblem(normalised) === undefined ? await usersRepository.findByEmail(normalised) : undefined;
        const token = newSecretToken();
        const now = clock.now();
        const expiresAt = new Date(now.getTime() + RESET_VALID_MS).toISOString();
        const message = passwordResetMail({ to: found?.email ?? NOBODY, link: portalLink(origin, '/reset-password', { token }), expiresAt });
        const prepared = await mail.prepare(message, found === undefined ? {} : { accountId: found.accountId });
        if (found === undefined || found.disabledAt !== undefined) return;
        const grant = { kind: 'reset', userId: found.id, origin: 'user' } as const;
        await usersRepository.createTokenWithMail({ ...grant, hash: tokenHash(token), createdAt: now.toISOString(), expiresAt }, prepared);
      });
    },

    /**
     * What a reset link still valid asks for besides the password, when its
     * user asked for it themself: one of their passkeys, if they have one
     * (the stronger factor), else a code of their authenticator app, if
     * two-step sign-in is on; and whose email the codes typed count against
     * (the sign-in throttle). undefined: not valid.
     */
    async peekReset(token: string): Promise<{ passkeyRequired: boolean; codeRequired: boolean; email: string } | undefined> {
      const grant = isSecretTokenShape(token) ? await usersRepository.peekToken(tokenHash(token), 'reset', nowIso()) : undefined;
      const user = grant?.userId === undefined ? undefined : await usersRepository.findById(grant.userId);
      if (grant === undefined || user === undefined) return undefined;
      return { ...(await secondFactors(user.id, grant.origin)), email: user.email };
    },

    /**
     * Sets the password a reset token was issued for, once; every session of
     * the user ends, and every other reset link of theirs dies with this one
     * (in storage, in one transaction: of two links used at once, one wins).
     * A link the user asked for, of a user with a passkey, also needs that
     * user's passkey (`passkeyUserId`: whom a verified assertion proved): a
     * reset must not bypass the stronger factor; so does a user with
     * two-step sign-in on and no passkey, with a code of their app or a
     * recovery code (`code`, checked once the password is acceptable: a
     * code is used once; the page counts it against the user's email in the
     * sign-in throttle). A refused password, passkey or code leaves the link
     * usable.
     */
    async resetPassword(input: { token: string; password: string; passkeyUserId?: number; code?: string; origin: string }): Promise<{ ok: true; user: User } | Refusal> {
      const hash = isSecretTokenShape(input.token) ? tokenHash(input.token) : undefined;
      const grant = hash === undefined ? undefined : await usersRepository.peekToken(hash, 'reset', nowIso());
      const user = grant?.userId === undefined ? undefined : await usersRepository.findById(grant.userId);
      if (hash === undefined || grant === undefined || user === undefined) return RESET_INVALID;
      const factors = await secondFactors(user.id, grant.origin);
      if (factors.passkeyRequired && input.passkeyUserId !== user.id) return PASSKEY_REQUIRED;
      const badPassword = await passwordProblem(input.password, await passwordOwner(user), breachedPasswords);
      if (badPassword !== undefined) return { ok: false, field: 'password', message: badPassword };
      if (factors.codeRequired && (await twoStep.verify(user.id, input.code ?? '')) === undefined) return CODE_REQUIRED;
      const notice = await mail.prepare(securityNotice(user, 'password_reset', input.origin), { accountId: user.accountId });
      if ((await usersRepository.usePasswordReset(hash, await hashPassword(input.password), nowIso(), notice)) !== user.id) return RESET_INVALID;
      await sessions.endAll(user.id);
      await twoStep.endPendingSignIns(user.id);
      return { ok: true, user: withoutPassword(user) };
    },
  };

  /**
   * The factor a reset the user asked for needs (an operator's link needs
   * none): their passkey when they have one (phishing-resistant, so a code
   * does not stand in for it), else their authenticator app's code when
   * two-step sign-in is on.
   */
  async function secondFactors(userId: number, origin: OneTimeTokenOrigin): Promise<{ passkeyRequired: boolean; codeRequired: boolean }> {
    if (origin !== 'user') return { passkeyRequired: false, codeRequired: false };
    const [passkeys, twoStepOn] = await Promise.all([passkeysRepository.listByUser(userId), twoStep.isOn(userId)]);
    return { passkeyRequired: passkeys.length > 0, codeRequired: passkeys.length === 0 && twoStepOn };
  }

  function securityNotice(user: Pick<User, 'email'>, change: SecurityChange, origin: string) {
    return securityNoticeMail({ to: user.email, change, at: nowIso(), signInLink: portalLink(origin, '/sign-in'), resetLink: portalLink(origin, '/forgot-password') });
  }

  /** The invitation a sign-up link carries, if it is still pending (without using it). */
  async function peekInvite(token: string): Promise<Invitation | undefined> {
    if (!isSecretTokenShape(token)) return undefined;
    return teamRepository.peekInvitation(tokenHash(token), nowIso());
  }

  /** Whose password is being set: their email and their store's name, which it must not be. */
  async function passwordOwner(user: User): Promise<PasswordOwner> {
    return { email: user.email, storeName: (await accounts.requireAccount(user.accountId)).name };
  }

  async function issueToken(grant: { kind: 'reset'; userId: number }, validMs: number) {
    const token = newSecretToken();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + validMs).toISOString();
    await usersRepository.createToken({ ...grant, hash: tokenHash(token), createdAt: now.toISOString(), expiresAt });
    return { token, expiresAt };
  }
}

export type UsersService = ReturnType<typeof createUsersService>;
