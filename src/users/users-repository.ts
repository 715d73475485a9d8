import type { NewMail } from '../mail/mail-repository.js';

/** A person who signs in to the portal; they belong to one account (the store). */
export interface User {
  id: number;
  accountId: number;
  /** Normalised: trimmed, lower case. */
  email: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC; absent while the user may sign in. */
  disabledAt?: string;
}

/** A user with the Argon2id hash of their password: only the users service reads it. */
export interface UserWithPassword extends User {
  passwordHash: string;
}

export interface NewUser {
  accountId: number;
  email: string;
  passwordHash: string;
  createdAt: string;
}

/** What an operator's one-time link lets its holder do. */
export type OneTimeTokenKind = 'invite' | 'reset';

/** Who made a link: the operator (the CLI) or the user themself (the portal's "Forgot password?"). */
export type OneTimeTokenOrigin = 'operator' | 'user';

export interface NewOneTimeToken {
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  hash: string;
  kind: OneTimeTokenKind;
  /** The account an invitation joins (kind `invite`). */
  accountId?: number;
  /** The user whose password a reset sets (kind `reset`). */
  userId?: number;
  /** `operator` unless given. */
  origin?: OneTimeTokenOrigin;
  createdAt: string;
  expiresAt: string;
}

/** What a token that is still valid grants. */
export interface OneTimeTokenGrant {
  kind: OneTimeTokenKind;
  origin: OneTimeTokenOrigin;
  accountId?: number;
  userId?: number;
}

/** Storage of portal users and the operator's one-time tokens. Adapters live in src/storage/<database>/. */
export interface UsersRepository {
  /** The new user, or `email_taken` when a user already has that (normalised) email. */
  create(user: NewUser): Promise<User | 'email_taken'>;
  findByEmail(email: string): Promise<UserWithPassword | undefined>;
  findById(id: number): Promise<UserWithPassword | undefined>;
  /** Every user, by id. */
  list(): Promise<User[]>;
  /**
   * Sets the user's password hash and deletes every outstanding (unused)
   * reset token of the user, in one transaction: a link handed out before a
   * password change no longer works. false when there is no such user.
   */
  setPasswordHash(userId: number, passwordHash: string): Promise<boolean>;
  /** Marks the user disabled (once: a second call keeps the first time) and ends all their sessions, in one transaction. */
  disable(userId: number, at: string): Promise<boolean>;
  createToken(token: NewOneTimeToken): Promise<void>;
  /** Stores the token and queues the mail that carries it, in one transaction: neither is written without the other. */
  createTokenWithMail(token: NewOneTimeToken, mail: NewMail): Promise<void>;
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
  usePasswordReset(hash: string, passwordHash: string, now: string): Promise<number | undefined>;
}

/** The user without their password hash: what leaves the users service. */
export function withoutPassword(user: UserWithPassword): User {
  return {
    id: user.id,
    accountId: user.accountId,
    email: user.email,
    createdAt: user.createdAt,
    ...(user.disabledAt === undefined ? {} : { disabledAt: user.disabledAt }),
  };
}
