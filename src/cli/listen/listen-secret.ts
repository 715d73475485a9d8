import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { newSigningSecret } from '../../webhooks/security/webhook-secrets.js';
import { CommandFailed } from '../cli-errors.js';

/** What newSigningSecret makes: `whsec_` and base64. */
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

/**
 * Where `listen` keeps its signing secret: `$XDG_CONFIG_HOME/store-orders/listen-secret`,
 * or `~/.config/store-orders/listen-secret` (the XDG Base Directory
 * specification: an unset or relative XDG_CONFIG_HOME means ~/.config).
 */
export function listenSecretPath(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env.XDG_CONFIG_HOME;
  const home = env.HOME === undefined || env.HOME === '' ? homedir() : env.HOME;
  const base = configured !== undefined && path.isAbsolute(configured) ? configured : path.join(home, '.config');
  return path.join(base, 'store-orders', 'listen-secret');
}

const cannotKeep = (file: string, error: unknown) =>
  new CommandFailed(`cannot keep the signing secret in ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);

/** The file's text, or undefined when there is no file yet. */
async function readSecretFile(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw cannotKeep(file, error);
  }
}

/**
 * The signing secret `listen` forwards with, made on the first run and kept
 * in `file` (mode 0600, its folder 0700), so that a receiver configured with
 * it keeps verifying across restarts, as `stripe listen` does. The file
 * appears whole or not at all (written aside, then linked into place), so two
 * first runs at once agree on one secret.
 */
export async function loadOrCreateListenSecret(file: string): Promise<string> {
  let secret = await readSecretFile(file);
  if (secret === undefined) {
    try {
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const aside = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(aside, `${newSigningSecret()}\n`, { flag: 'wx', mode: 0o600 });
      try {
        await link(aside, file);
      } catch (error) {
        // Another first run got there before: its secret is the one.
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        await unlink(aside);
      }
    } catch (error) {
      throw cannotKeep(file, error);
    }
    secret = (await readSecretFile(file)) ?? '';
  }
  if (!SIGNING_SECRET.test(secret)) throw new CommandFailed(`${file} does not hold a webhook signing secret (whsec_…); delete it and run listen again for a new one`);
  return secret;
}
