import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';
import type { BreachedPasswordCheck } from './breached-passwords.js';

/**
 * OWASP ASVS 5.0 6.2.1 and 6.2.9, NIST SP 800-63B: at least 12 characters,
 * up to 128, counted in code points; any Unicode; no composition rules (6.2.5).
 */
const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 128;

/** How many of the ranked common passwords are refused (ASVS 5.0 6.2.4: at least the top 3000). */
export const COMMON_PASSWORDS_COUNT = 10_000;

/** Whose password it is: it must not be their email, its local part or their store's name (ASVS 5.0 6.2.11). */
export interface PasswordOwner {
  email: string;
  /** Absent when there is no store name to compare with. */
  storeName?: string;
}

/** How a password is compared with the list and the owner's words: Unicode compatibility form (NFKC), lower case, no whitespace. */
function comparable(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, '');
}

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/**
 * The 10,000 most common passwords: the first of the frequency-ranked list
 * that zxcvbn-ts ships (`@zxcvbn-ts/language-common`, MIT), drawn from the
 * 10 million leaked passwords Mark Burnett published (xato.net). Loaded
 * once, on first use, so that processes that never set a password (the CLI,
 * the store host) do not pay for it.
 */
function loadCommonPasswords(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'].slice(0, COMMON_PASSWORDS_COUNT).map(comparable)));
  return commonPasswords;
}

/**
 * Why a new password is refused, or undefined: its length (code points, as a
 * person counts characters), one of the 10,000 most common passwords, or
 * the owner's own email, its local part or store name, compared without
 * regard to case, whitespace or Unicode compatibility forms; and, with
 * `breached` (PORTAL_BREACHED_PASSWORDS_URL), one seen in a data breach
 * (ASVS 5.0 6.2.12; a check that cannot answer lets it through). Nothing
 * else is asked: no digit, capital or symbol.
 */
export async function passwordProblem(password: string, owner: PasswordOwner, breached?: BreachedPasswordCheck): Promise<string | undefined> {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  const candidate = comparable(password);
  const email = comparable(owner.email);
  const at = email.lastIndexOf('@');
  if (candidate === email || (at > 0 && candidate === email.slice(0, at))) return 'Your password cannot be your email address.';
  if (owner.storeName !== undefined && candidate === comparable(owner.storeName)) return 'Your password cannot be your store name.';
  if ((await loadCommonPasswords()).has(candidate)) return 'This password is one of the 10,000 most common passwords. Choose one that is harder to guess.';
  // Last, and only when configured: the one check that leaves the server (5 characters of a hash).
  if (breached !== undefined && (await breached(password)) === 'breached') return 'This password appears in known data breaches, so attackers try it first. Choose another.';
  return undefined;
}

/**
 * Argon2id at OWASP's minimum (Password Storage Cheat Sheet): 19 MiB of
 * memory, 2 iterations, 1 lane. The parameters are in each stored hash, so
 * raising them later leaves existing hashes verifiable.
 */
const ARGON2_OPTIONS: Readonly<Options> = {
  // Algorithm is an ambient const enum, which isolated modules cannot read; 2 is Argon2id.
  algorithm: 2 as Algorithm,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
};

export async function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/** Whether `password` matches `passwordHash`; a malformed hash is a mismatch, never a throw. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash no password is known to match, with the same parameters as real
 * ones: a sign-in for an unknown email verifies against it, so that it costs
 * the same time as a wrong password for a known one (no user enumeration
 * through timing).
 */
export function createDummyHash(): Promise<string> {
  return hashPassword(`no user has this password ${Math.random()} ${Date.now()}`);
}
