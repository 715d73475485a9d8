import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';

/** NIST SP 800-63B and OWASP ASVS 2.1: at least 12 characters, long passphrases allowed, no composition rules. */
const PASSWORD_MIN_LENGTH = 12;
const PASSWORD_MAX_LENGTH = 1024;

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

/** Why a password is refused, or undefined. Counted in code points, as a person counts characters. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  return undefined;
}

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
