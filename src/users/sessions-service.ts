import type { Clock } from '../shared/clock.js';
import { randomBytes } from 'node:crypto';
import { describeUserAgent } from '../shared/user-agent.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from './secret-tokens.js';
import type { SessionsRepository, SessionSummary } from './sessions-repository.js';
import type { MemberRole } from './team/member-roles.js';
import type { User } from './users-repository.js';

export interface SessionTimeouts {
  /** A session unused this long ends (OWASP: 15 to 30 minutes for most applications). */
  idleMs: number;
  /** A session ends this long after sign-in, however active. */
  absoluteMs: number;
}

/**
 * The signed-in user of a request, with what every page shows.
 * `user.accountId` is the account the session works in (the header's
 * switcher changes it), `role` the user's role there.
 */
export interface SignedIn {
  user: User;
  accountName: string;
  role: MemberRole;
  /** The session's id hash: to end it, or to keep it while ending the others. */
  sessionIdHash: string;
  /** When the user last proved who they are in this session (sign-in, or a confirmation since): see `recentlyAuthenticated`. */
  authenticatedAt: string;
}

/**
 * How long after the user last proved who they are (signing in, or
 * confirming with their password or a passkey) a sensitive action proceeds
 * without asking again (docs/portal.md, "Re-authentication"; OWASP ASVS 5.0
 * 7.5.2, 7.5.3): long enough for a few changes in a row, short enough that a
 * browser left signed in, or a stolen session, cannot end sessions or change
 * the team without the password.
 */
export const REAUTHENTICATION_WINDOW_MS = 10 * 60_000;

/** The browser a session starts in, as the request shows it. */
export interface SessionClient {
  userAgent: string | undefined;
  address: string;
}

/**
 * Server-side sessions. The cookie holds 256 random bits; storage keeps only
 * their SHA-256, so a read of the database cannot sign anyone in. Every
 * resolve reads the database, so that sign-out, a password change or a
 * disabled user takes effect at once on every process.
 */
export function createSessionsService({
  sessionsRepository,
  clock,
  timeouts,
}: {
  sessionsRepository: SessionsRepository;
  clock: Clock;
  timeouts: SessionTimeouts;
}) {
  // last_seen_at is written at most this often: an active user costs one write a minute, not one per request.
  const touchEveryMs = Math.min(60_000, Math.floor(timeouts.idleMs / 10));
  return {
    timeouts,

    /**
     * A new session for the user (always a new id: no fixation), described
     * by its browser for the Sessions list, working in `accountId` when
     * given (else their own account, or the first they joined); returns the
     * cookie's value and that account, or undefined when the user is a
     * member of no account (or not of that one): then nothing is stored.
     */
    async start(userId: number, client: SessionClient, accountId?: number): Promise<{ token: string; accountId: number } | undefined> {
      const token = newSecretToken();
      const now = clock.now();
      const stored = await sessionsRepository.create({
        idHash: tokenHash(token),
        userId,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + timeouts.absoluteMs).toISOString(),
        // 128 random bits, unrelated to the id: the End button names the session without revealing anything of it.
        handle: randomBytes(16).toString('hex'),
        device: describeUserAgent(client.userAgent),
        address: client.address,
        ...(accountId === undefined ? {} : { accountId }),
      });
      return stored === undefined ? undefined : { token, accountId: stored };
    },

    /** Makes the session work in another account of the user's; false when they are not a member of it. */
    async switchAccount(signedIn: Pick<SignedIn, 'user' | 'sessionIdHash'>, accountId: number): Promise<boolean> {
      return sessionsRepository.switchAccount(signedIn.sessionIdHash, signedIn.user.id, accountId);
    },

    /**
     * The session's user, or undefined when the token is unknown, idle too
     * long, past its absolute end, or its user disabled (then it is
     * deleted), or no longer a member of the account it works in.
     */
    async resolve(token: string): Promise<SignedIn | undefined> {
      if (!isSecretTokenShape(token)) return undefined;
      const idHash = tokenHash(token);
      const record = await sessionsRepository.find(idHash);
      if (record === undefined) return undefined;
      const now = clock.now().getTime();
      const lastSeen = Date.parse(record.lastSeenAt);
      if (record.user.disabledAt !== undefined || now >= Date.parse(record.expiresAt) || now - lastSeen >= timeouts.idleMs) {
        await sessionsRepository.delete(idHash);
        return undefined;
      }
      if (now - lastSeen >= touchEveryMs) await sessionsRepository.touch(idHash, new Date(now).toISOString());
      return { user: record.user, accountName: record.accountName, role: record.role, sessionIdHash: idHash, authenticatedAt: record.authenticatedAt };
    },

    /** Whether the session's user proved who they are within REAUTHENTICATION_WINDOW_MS (a sensitive action may proceed without asking). */
    recentlyAuthenticated(signedIn: Pick<SignedIn, 'authenticatedAt'>): boolean {
      return clock.now().getTime() - Date.parse(signedIn.authenticatedAt) < REAUTHENTICATION_WINDOW_MS;
    },

    /** Records that the session's user has just confirmed who they are (their password or a passkey): the window starts again. */
    async confirmed(signedIn: Pick<SignedIn, 'sessionIdHash'>): Promise<void> {
      await sessionsRepository.markAuthenticated(signedIn.sessionIdHash, clock.now().toISOString());
    },

    /** The user's live sessions (past their idle or absolute end ones are left out), `current` marking the one asking; newest first. */
    async list(signedIn: Pick<SignedIn, 'user' | 'sessionIdHash'>): Promise<SessionSummary[]> {
      const now = clock.now().getTime();
      const sessions = await sessionsRepository.listForUser(signedIn.user.id, signedIn.sessionIdHash);
      return sessions.filter((session) => now < Date.parse(session.expiresAt) && now - Date.parse(session.lastSeenAt) < timeouts.idleMs);
    },

    /** Ends the user's session named `handle`; false when the user has none by that name (another user's, or already ended). */
    async endByHandle(userId: number, handle: string): Promise<boolean> {
      return sessionsRepository.deleteByHandle(userId, handle);
    },

    /** Ends one session (sign-out). */
    async end(sessionIdHash: string): Promise<void> {
      await sessionsRepository.delete(sessionIdHash);
    },

    /** Ends every session of the user, except `keep` when given (the one that changed the password). */
    async endAll(userId: number, keep?: string): Promise<number> {
      return sessionsRepository.deleteForUser(userId, keep);
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
