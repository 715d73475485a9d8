import type { Clock } from '../shared/clock.js';

export interface ThrottleLimits {
  /** Failed sign-ins one email may take per window. */
  perEmail: number;
  /** Attempts (failed sign-ins, sign-ups, password resets) one client address may make per window. */
  perAddress: number;
  windowMs: number;
}

/** Beyond this many distinct keys the oldest windows are dropped, so a spray of addresses cannot grow memory without bound. */
const MAX_KEYS = 100_000;

/**
 * Counts guesses per email and per client address in fixed windows, in this
 * process's memory (like the API's rate limits): with N processes an attacker
 * gets at most N times the budget, still far from what guessing needs. A
 * counter is keyed by the normalised email, so the limit does not tell
 * whether that email exists.
 */
export function createSignInThrottle({ limits, clock }: { limits: ThrottleLimits; clock: Clock }) {
  const windows = new Map<string, { count: number; endsAt: number }>();

  const current = (key: string, now: number) => {
    const window = windows.get(key);
    if (window === undefined || window.endsAt <= now) return undefined;
    return window;
  };

  return {
    limits,

    /**
     * Milliseconds until the email or address may try again, or 0 when it may
     * try now. Checked before the password is.
     */
    retryAfterMs({ email, address }: { email?: string; address: string }): number {
      const now = clock.now().getTime();
      let wait = 0;
      const byAddress = current(`a:${address}`, now);
      if (byAddress !== undefined && byAddress.count >= limits.perAddress) wait = byAddress.endsAt - now;
      const byEmail = email === undefined ? undefined : current(`e:${email}`, now);
      if (byEmail !== undefined && byEmail.count >= limits.perEmail) wait = Math.max(wait, byEmail.endsAt - now);
      return wait;
    },

    /** Counts one failed (or, for an address, one costly) attempt. */
    count({ email, address }: { email?: string; address: string }): void {
      const now = clock.now().getTime();
      if (windows.size >= MAX_KEYS) {
        for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
        if (windows.size >= MAX_KEYS) windows.clear();
      }
      for (const key of [`a:${address}`, ...(email === undefined ? [] : [`e:${email}`])]) {
        const window = current(key, now);
        if (window === undefined) windows.set(key, { count: 1, endsAt: now + limits.windowMs });
        else window.count += 1;
      }
    },

    /** A successful sign-in clears the email's failures (not the address's). */
    clearEmail(email: string): void {
      windows.delete(`e:${email}`);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
