import { createHmac, randomBytes } from 'node:crypto';
import type { SecretsRepository } from '../secrets/secrets-repository.js';
import type { Clock } from '../shared/clock.js';
import type { AttemptThrottleRepository } from './attempt-throttle-repository.js';

export interface ThrottleLimits {
  /** Failed sign-ins one email may take per window. */
  perEmail: number;
  /** Attempts (failed sign-ins, sign-ups, password resets) one client address may make per window. */
  perAddress: number;
  windowMs: number;
}

/** Who makes an attempt: always a client address, and the email it is about when there is one (normalised). */
export interface Attempter {
  address: string;
  email?: string;
}

/** What `hit` answers: go ahead (the attempt is counted), or wait this long. */
export type ThrottleAnswer = { allowed: true } | { allowed: false; retryAfterMs: number };

/** The server secret the keys are hashed under (server_secrets). */
const KEY_SECRET_NAME = 'attempt-throttle-key';

/**
 * Counts attempts per email and per client address in fixed windows kept in
 * the database, so every process shares one budget (N servers do not give N
 * times the guesses). A key is an HMAC of the email or address under a
 * server secret: the table holds no list of attempted emails, and the limit
 * does not tell whether an email has an account. Ended windows are pruned by
 * the process that hits first after each window's length.
 */
export function createAttemptThrottle({
  attemptThrottleRepository: repository,
  secretsRepository,
  limits,
  clock,
}: {
  attemptThrottleRepository: AttemptThrottleRepository;
  secretsRepository: SecretsRepository;
  limits: ThrottleLimits;
  clock: Clock;
}) {
  let secret: Promise<string> | undefined;
  const loadSecret = () => {
    secret ??= secretsRepository.getOrCreate(KEY_SECRET_NAME, randomBytes(32).toString('base64url'), clock.now().toISOString());
    // A failed load (database down) must not be remembered.
    secret.catch(() => (secret = undefined));
    return secret;
  };
  const keyOf = async (scope: string, value: string) => createHmac('sha256', await loadSecret()).update(`${scope}\n${value}`).digest('hex');
  /** The email's key (when given) and the address's, each with its budget: email first, so a refused email does not cost the address. */
  const keysOf = async ({ address, email }: Attempter) => ({
    email: email === undefined ? undefined : { key: await keyOf('email', email), limit: limits.perEmail },
    address: { key: await keyOf('address', address), limit: limits.perAddress },
  });
  const listOf = ({ email, address }: Awaited<ReturnType<typeof keysOf>>) => (email === undefined ? [address] : [email, address]);
  let nextPruneAt = 0;

  return {
    limits,

    /**
     * Counts one attempt for the email (when given) and the address, unless
     * either is over its budget: then nothing is counted and the answer says
     * how long to wait. Atomic per key in the database, so concurrent
     * attempts on any number of processes never pass the budget.
     */
    async hit(attempter: Attempter): Promise<ThrottleAnswer> {
      const now = clock.now().getTime();
      const at = new Date(now).toISOString();
      if (now >= nextPruneAt) {
        nextPruneAt = now + limits.windowMs;
        await repository.pruneExpired(at);
      }
      const windowEndsAt = new Date(now + limits.windowMs).toISOString();
      const taken: string[] = [];
      for (const { key, limit } of listOf(await keysOf(attempter))) {
        const result = await repository.take(key, { limit, at, windowEndsAt });
        if (!result.taken) {
          for (const done of taken) await repository.giveBack(done, at);
          return { allowed: false, retryAfterMs: Math.max(1, Date.parse(result.endsAt) - now) };
        }
        taken.push(key);
      }
      return { allowed: true };
    },

    /**
     * Counts one use of a budget of its own, apart from the attempts above:
     * `scope` names it (never `email` or `address`, so its keys never meet
     * theirs), `value` is what it is counted per (e.g. an address sign-up
     * mails, sign-up-service.ts). The same atomic windows in the database,
     * the same keyed hash. false, counting nothing, while it is spent.
     */
    async spend(scope: string, value: string, { limit, windowMs }: { limit: number; windowMs: number }): Promise<boolean> {
      const now = clock.now().getTime();
      const at = new Date(now).toISOString();
      return (await repository.take(await keyOf(scope, value), { limit, at, windowEndsAt: new Date(now + windowMs).toISOString() })).taken;
    },

    /**
     * Milliseconds until the email or address may try again, or 0 when it
     * may try now; counts nothing (a page that only looks, such as the
     * passkey options).
     */
    async retryAfterMs(attempter: Attempter): Promise<number> {
      const now = clock.now().getTime();
      const at = new Date(now).toISOString();
      let wait = 0;
      for (const { key, limit } of listOf(await keysOf(attempter))) {
        const window = await repository.peek(key, at);
        if (window !== undefined && window.count >= limit) wait = Math.max(wait, Date.parse(window.endsAt) - now);
      }
      return wait;
    },

    /**
     * After a successful sign-in, which was counted by `hit` before the
     * credentials were checked: the email's failures are cleared and the
     * address gets this attempt back (only failures count against it).
     */
    async succeeded(attempter: Attempter): Promise<void> {
      const keys = await keysOf(attempter);
      if (keys.email !== undefined) await repository.clear(keys.email.key);
      await repository.giveBack(keys.address.key, clock.now().toISOString());
    },
  };
}

export type AttemptThrottle = ReturnType<typeof createAttemptThrottle>;
