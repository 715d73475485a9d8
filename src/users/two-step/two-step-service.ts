import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import type { Clock } from '../../shared/clock.js';
import { isSecretTokenShape, newSecretToken, tokenHash } from '../secret-tokens.js';
import type { TwoStepRepository } from './two-step-repository.js';

/** The issuer an authenticator app shows beside the account (RFC 6238 key URI, `issuer=`). */
const ISSUER = 'Store Orders';
/** 30-second codes of 6 digits, HMAC-SHA1: what every authenticator app reads from a key URI (RFC 6238's defaults). */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Codes of the step before and after the current one are accepted too (ASVS 5.0 6.5.5: a clock a little off still works; 90 s at most). */
const WINDOW_STEPS = 1;
/** 160-bit secrets (RFC 4226's recommended length). */
const SECRET_BYTES = 20;
const RECOVERY_CODES = 10;
/** 24 characters of a 32-letter alphabet: 120 bits, so a plain SHA-256 may store them (ASVS 5.0 6.5.2: 112 bits or more). */
const RECOVERY_CODE_LENGTH = 24;
/** Crockford's base 32 in lower case: no i, l, o or u, so nothing reads as another character. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** What the box that seals authenticator secrets is keyed with: PORTAL_SECRETS_KEY, or a key kept in the database under this name. */
export const TWO_STEP_BOX_PURPOSE = { keyName: 'two-step-key', label: 'store-orders two-step secrets' };
/** How long a sign-in whose password was right waits for its code. */
export const PENDING_SIGN_IN_MS = 5 * 60_000;

/** What the set-up page shows: the key URI as a QR code and the secret to type in by hand. */
export interface AuthenticatorSetUp {
  /** The secret in base 32, in groups of four (how apps ask for it typed in). */
  secret: string;
  /** The otpauth:// key URI the QR code holds. */
  uri: string;
  /** The QR code as an SVG element (no script, no external reference). */
  qrSvg: string;
}

export type CodeKind = 'authenticator' | 'recovery_code';

/** A recovery code as typed: lower case, without spaces or dashes. */
function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

/** Ten new recovery codes, shown in groups of four characters, and the hashes storage keeps. */
function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, () =>
    Array.from({ length: RECOVERY_CODE_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)])
      .join('')
      .replace(/(.{4})(?=.)/g, '$1-'),
  );
  return { codes, hashes: codes.map((code) => tokenHash(normaliseRecoveryCode(code))) };
}

/**
 * Two-step sign-in (docs/portal.md, "Two-step sign-in"; OWASP ASVS 5.0
 * 6.3.3, 6.5.x): an authenticator app's time-based codes (RFC 6238, through
 * the `otpauth` library), with ten one-time recovery codes for a lost
 * phone. The shared secret is sealed at rest; a code is accepted once (the
 * step of the last accepted code is kept, and a code of that step or before
 * is refused, also when two processes race); recovery codes are kept as
 * SHA-256 hashes and used once. A sign-in whose password was right waits
 * for its code as a pending sign-in: a token the browser holds in a cookie,
 * its hash in the database, valid 5 minutes.
 */
export function createTwoStepService({
  twoStepRepository,
  box,
  clock,
}: {
  twoStepRepository: TwoStepRepository;
  box: { seal(secret: string): Promise<string>; open(sealed: string): Promise<string> };
  clock: Clock;
}) {
  const nowIso = () => clock.now().toISOString();

  function totpOf(secret: string, email: string): TOTP {
    return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });
  }

  /** The time step a code of `secret` belongs to, when it is one of the accepted window's; undefined otherwise. */
  function stepOf(secret: string, code: string): number | undefined {
    const token = code.replace(/\s+/g, '');
    if (!/^[0-9]{6}$/.test(token)) return undefined;
    const timestamp = clock.now().getTime();
    const delta = totpOf(secret, '').validate({ token, timestamp, window: WINDOW_STEPS });
    return delta === null ? undefined : Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
  }

  function setUpOf(secret: string, email: string): AuthenticatorSetUp {
    const uri = totpOf(secret, email).toString();
    return { secret: secret.replace(/(.{4})(?=.)/g, '$1 '), uri, qrSvg: renderSVG(uri, { border: 2 }) };
  }

  return {
    /** Whether the user signs in in two steps (a confirmed authenticator app), and how many recovery codes they have left. */
    async status(userId: number): Promise<{ on: boolean; recoveryCodesLeft: number }> {
      const stored = await twoStepRepository.find(userId);
      if (stored?.confirmedAt === undefined) return { on: false, recoveryCodesLeft: 0 };
      return { on: true, recoveryCodesLeft: await twoStepRepository.unusedRecoveryCodes(userId) };
    },

    async isOn(userId: number): Promise<boolean> {
      return (await twoStepRepository.find(userId))?.confirmedAt !== undefined;
    },

    /**
     * Starts setting up an authenticator app: a new secret, sealed and
     * stored unconfirmed (replacing one not confirmed yet). Undefined when
     * two-step sign-in is already on.
     */
    async begin(user: { id: number; email: string }): Promise<AuthenticatorSetUp | undefined> {
      const secret = new Secret({ size: SECRET_BYTES }).base32;
      const started = await twoStepRepository.begin(user.id, await box.seal(secret), nowIso());
      return started === 'already_on' ? undefined : setUpOf(secret, user.email);
    },

    /** The set-up under way again (the page shown once more after a wrong code); undefined when none is. */
    async pendingSetUp(user: { id: number; email: string }): Promise<AuthenticatorSetUp | undefined> {
      const stored = await twoStepRepository.find(user.id);
      if (stored === undefined || stored.confirmedAt !== undefined) return undefined;
      return setUpOf(await box.open(stored.sealedSecret), user.email);
    },

    /**
     * Confirms the set-up with a first code from the app: two-step sign-in
     * is on from now, and the ten recovery codes are returned, to be shown
     * once. Undefined when the code is not right (or no set-up is under way).
     */
    async confirm(userId: number, code: string): Promise<{ recoveryCodes: string[] } | undefined> {
      const stored = await twoStepRepository.find(userId);
      if (stored === undefined || stored.confirmedAt !== undefined) return undefined;
      const step = stepOf(await box.open(stored.sealedSecret), code);
      if (step === undefined) return undefined;
      const { codes, hashes } = newRecoveryCodes();
      return (await twoStepRepository.confirm(userId, step, hashes, nowIso())) ? { recoveryCodes: codes } : undefined;
    },

    /**
     * Checks a code of a user who signs in in two steps: a code of their
     * app, used once, or one of their recovery codes, used once. Which kind
     * was accepted, or undefined.
     */
    async verify(userId: number, code: string): Promise<CodeKind | undefined> {
      const stored = await twoStepRepository.find(userId);
      if (stored?.confirmedAt === undefined) return undefined;
      const step = stepOf(await box.open(stored.sealedSecret), code);
      if (step !== undefined) return (await twoStepRepository.useStep(userId, step)) ? 'authenticator' : undefined;
      const recovery = normaliseRecoveryCode(code);
      if (recovery.length !== RECOVERY_CODE_LENGTH) return undefined;
      return (await twoStepRepository.useRecoveryCode(userId, tokenHash(recovery), nowIso())) ? 'recovery_code' : undefined;
    },

    /** Ten new recovery codes in place of the old ones (every old one stops working); undefined when two-step sign-in is off. */
    async newRecoveryCodes(userId: number): Promise<string[] | undefined> {
      const { codes, hashes } = newRecoveryCodes();
      return (await twoStepRepository.replaceRecoveryCodes(userId, hashes, nowIso())) ? codes : undefined;
    },

    /** Turns two-step sign-in off (the app's secret and the recovery codes are deleted); false when it was not set up. */
    async turnOff(userId: number): Promise<boolean> {
      return twoStepRepository.remove(userId);
    },

    /** A sign-in whose password was right, waiting for its code: the token for the browser's cookie. */
    async startPendingSignIn(userId: number): Promise<string> {
      const token = newSecretToken();
      const now = clock.now();
      await twoStepRepository.createPendingSignIn({ tokenHash: tokenHash(token), userId, createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + PENDING_SIGN_IN_MS).toISOString() });
      return token;
    },

    /** The user a pending sign-in's token stands for, while it is valid. */
    async pendingSignInUser(token: string | undefined): Promise<number | undefined> {
      if (token === undefined || !isSecretTokenShape(token)) return undefined;
      return twoStepRepository.findPendingSignIn(tokenHash(token), nowIso());
    },

    /** Ends every pending sign-in of the user: their password changed (or was reset), so one begun with the old password must not finish. */
    async endPendingSignIns(userId: number): Promise<void> {
      await twoStepRepository.endPendingSignIns(userId);
    },

    /** Ends a pending sign-in (its code was accepted): its user, or undefined when it was not valid any more (used once). */
    async finishPendingSignIn(token: string): Promise<number | undefined> {
      if (!isSecretTokenShape(token)) return undefined;
      return twoStepRepository.consumePendingSignIn(tokenHash(token), nowIso());
    },
  };
}

export type TwoStepService = ReturnType<typeof createTwoStepService>;
