import type { NewMail } from '../mail/mail-repository.js';
import type { MemberRole } from './team/member-roles.js';
import type { Invitation } from './team/team-repository.js';

/**
 * A person who signs in to the portal. They may belong to several accounts
 * (team/team-repository.ts, memberships); `accountId` is the account they
 * were created into, or, for a signed-in user (sessions-service.ts), the
 * account their session works in.
 */
export interface User {
  id: number;
  accountId: number;
  /** Normalised: trimmed, lower case. */
  email: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC; absent while the user may sign in. */
  disabledAt?: string;
  /** ISO 8601 UTC: when the user followed a verification link to `email`; absent until then. */
  emailVerifiedAt?: string;
}

/** A user with the Argon2id hash of their password: only the users service reads it. */
export interface UserWithPassword extends User {
  passwordHash: string;
}

export interface NewUser {
  accountId: number;
  /** The user's role in `accountId` (their first membership): owner of a store they create, an invitation's role. */
  role: MemberRole;
  email: string;
  passwordHash: string;
  createdAt: string;
}

/**
 * What a one-time link lets its holder do: set a password, confirm the
 * user's address, or make `email` their address. (Invitations, kind
 * `invite` in this table until migration 0022, are the team's:
 * team/team-repository.ts.)
 */
export type OneTimeTokenKind = 'reset' | 'verify-email' | 'change-email';

/** Who made a link: the operator (the CLI) or the user themself (the portal's "Forgot password?"). */
export type OneTimeTokenOrigin = 'operator' | 'user';

export interface NewOneTimeToken {
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  hash: string;
  kind: OneTimeTokenKind;
  /** The user whose password a reset sets, or whose address the link confirms. */
  userId: number;
  /** The address a `verify-email` link confirms or a `change-email` link makes the user's (those kinds only). */
  email?: string;
  /** `operator` unless given. */
  origin?: OneTimeTokenOrigin;
  createdAt: string;
  expiresAt: string;
}

/** A user an invitation brings: the account they join and their role there are the invitation's. */
export type InvitedUser = Omit<NewUser, 'accountId' | 'role'>;

/** The link a sign-up queues: a `verify-email` token of the new user (whose id storage fills in) and the mail that carries it. */
export interface SignUpVerification {
  hash: string;
  createdAt: string;
  expiresAt: string;
  mail: NewMail;
}

/** What following a `verify-email` or `change-email` link did. */
export interface EmailTokenUse {
  kind: 'verify-email' | 'change-email';
  userId: number;
  accountId: number;
  /** The user's address now (the new one after a change). */
  email: string;
  /** The address before a change (kind `change-email`). */
  previousEmail?: string;
}

/** What a token that is still valid grants. */
export interface OneTimeTokenGrant {
  kind: OneTimeTokenKind;
  origin: OneTimeTokenOrigin;
  userId: number;
}

/** Storage of portal users and the operator's one-time tokens. Adapters live in src/storage/<database>/. */
export interface UsersRepository {
  /**
   * The new user, or `email_taken` when a user already has that (normalised)
   * email; their membership of `accountId` with `role` is written in the
   * same transaction. With `verification`, its `verify-email` token (for
   * the new user's address) and its mail are too.
   */
  create(user: NewUser, verification?: SignUpVerification): Promise<User | 'email_taken'>;
  /**
   * A sign-up with an invitation, in one transaction: uses the invitation
   * whose token has this hash (pending at `now`) and creates the user as a
   * member of its account with its role (with `verification`, as create
   * does), the invitation recording who accepted it. Nothing is written
   * unless both are: `invitation_invalid` when it is not pending (used,
   * revoked, expired, unknown), `email_taken` when a user has the email
   * (the invitation stays pending, for its rightful user). Of two
   * concurrent uses of one invitation, at most one creates a user.
   */
  createInvited(invitationTokenHash: string, now: string, user: InvitedUser, verification?: SignUpVerification): Promise<{ user: User; invitation: Invitation } | 'email_taken' | 'invitation_invalid'>;
  findByEmail(email: string): Promise<UserWithPassword | undefined>;
  findById(id: number): Promise<UserWithPassword | undefined>;
  /** Every user, by id. */
  list(): Promise<User[]>;
  /**
   * Sets the user's password hash and deletes every outstanding (unused)
   * reset token of the user, in one transaction: a link handed out before a
   * password change no longer works. false when there is no such user.
   */
  setPasswordHash(userId: number, passwordHash: string, notice?: NewMail): Promise<boolean>;
  /** Marks the user disabled (once: a second call keeps the first time) and ends all their sessions, in one transaction. */
  disable(userId: number, at: string): Promise<boolean>;
  createToken(token: NewOneTimeToken): Promise<void>;
  /** Stores the token and queues the mail (or mails) that carry and announce it, in one transaction: neither is written without the other. */
  createTokenWithMail(token: NewOneTimeToken, mail: NewMail | readonly NewMail[]): Promise<void>;
  /** The grant of a token of `kind` that is unused and unexpired at `now`, without using it. */
  peekToken(hash: string, kind: OneTimeTokenKind, now: string): Promise<OneTimeTokenGrant | undefined>;
  /** Marks the token used, atomically: of two concurrent callers, one gets the grant. */
  consumeToken(hash: string, kind: OneTimeTokenKind, now: string): Promise<OneTimeTokenGrant | undefined>;
  /**
   * Uses a reset token, in one transaction: marks it used, sets its user's
   * password hash and deletes every other outstanding reset token of that
   * user. The user's id, or undefined (nothing changed) when the token is not
   * an unused, unexpired reset token at `now`. Uses of one user's tokens are
   * serialised on the user: of two links used at once, one sets the password.
   */
  usePasswordReset(hash: string, passwordHash: string, now: string, notice?: NewMail): Promise<number | undefined>;
  /**
   * Uses a `verify-email` or `change-email` token, in one transaction. A
   * `verify-email` token marks its user verified while their address is
   * still the one it was sent to (else nothing changes and undefined). A
   * `change-email` token makes its address the user's, verified, and
   * deletes the user's other unused reset, verify-email and change-email
   * tokens (links mailed to the old address stop working). undefined when
   * the token is not such a token, unused and unexpired at `now`;
   * `email_taken` (nothing changed, the token still unused) when another
   * user has the address by now.
   */
  useEmailToken(hash: string, now: string): Promise<EmailTokenUse | 'email_taken' | undefined>;
}

/** The user without their password hash: what leaves the users service. */
export function withoutPassword(user: UserWithPassword): User {
  return {
    id: user.id,
    accountId: user.accountId,
    email: user.email,
    createdAt: user.createdAt,
    ...(user.disabledAt === undefined ? {} : { disabledAt: user.disabledAt }),
    ...(user.emailVerifiedAt === undefined ? {} : { emailVerifiedAt: user.emailVerifiedAt }),
  };
}
