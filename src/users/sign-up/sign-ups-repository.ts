import type { NewMail } from '../../mail/mail-repository.js';
import type { User } from '../users-repository.js';

/** A sign-up waiting for its address to be proven: what the form took, kept until the mailed link is followed. */
export interface PendingSignUp {
  /** Normalised, as users' emails are. */
  email: string;
  /** The Argon2id hash of the password chosen on the form; the password itself is never stored. */
  passwordHash: string;
  /** The store (account) name, trimmed. */
  storeName: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC: the link works until then. */
  expiresAt: string;
}

export interface NewPendingSignUp extends PendingSignUp {
  /** SHA-256 (hex) of the link's token; the token itself is never stored. */
  tokenHash: string;
}

/** What following a sign-up's link created: the user (owner of the new account, `user.accountId`), verified at the completion. */
export interface CompletedSignUp {
  user: User;
  storeName: string;
}

/**
 * Sign-ups pending until the link mailed to their address is followed
 * (sign-up-service.ts). Adapters live in src/storage/<database>/.
 */
export interface SignUpsRepository {
  /**
   * Stores the pending sign-up and queues the mail that carries its link, in
   * one transaction: neither is written without the other. An address has
   * at most one pending sign-up: a newer one replaces it, token, password
   * hash and store name included, so the earlier link stops working.
   * Sign-ups expired by `createdAt` are deleted on the way.
   */
  start(signUp: NewPendingSignUp, mail: NewMail): Promise<void>;
  /** The pending sign-up whose token has this hash, unexpired at `now`, without using it. */
  peek(tokenHash: string, now: string): Promise<PendingSignUp | undefined>;
  /**
   * Follows a sign-up's link, in one transaction: deletes the pending
   * sign-up (unexpired at `now`), creates its account, the user (the email
   * verified at `now`: the link proved the mailbox) and their membership as
   * the account's owner. Of two concurrent completions of one link, one
   * creates. undefined (nothing changed) when no such sign-up is pending
   * (used, replaced, expired, unknown); `email_taken` when a user has the
   * address by now: nothing is created and the sign-up is deleted, or, when
   * the address was taken in that very instant, left to expire.
   */
  complete(tokenHash: string, now: string): Promise<CompletedSignUp | 'email_taken' | undefined>;
}
