import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { DeploymentEnvironment } from '../config/config.js';

/*
 * API key format (modelled on GitHub's token format):
 *
 *   so_prod_<30 random base62 chars><6 base62 chars of CRC-32>
 *   so_stg_<30 random base62 chars><6 base62 chars of CRC-32>
 *
 * 30 base62 characters carry 178 bits of randomness. The prefix says which
 * environment issued the key (and makes leaked keys easy to find with secret
 * scanners); the checksum over prefix and body lets the server reject typos
 * and made-up keys without touching storage.
 */

const API_KEY_PREFIXES: Readonly<Record<DeploymentEnvironment, string>> = {
  production: 'so_prod_',
  staging: 'so_stg_',
};

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
/** How many leading characters of a key are stored and shown to identify it. */
const VISIBLE_START_LENGTH = 4;

/** Matches anything shaped like one of our keys, for scrubbing text before it is logged. */
const API_KEY_PATTERN = /so_(?:prod|stg)_[0-9A-Za-z]+/g;
const API_KEY_SHAPE = /^so_(prod|stg)_([0-9A-Za-z]{36})$/;

export interface GeneratedApiKey {
  /** The secret. Shown once, never stored. */
  key: string;
  /** SHA-256 of the key, hex: what storage holds. */
  hash: string;
  /** Prefix plus the first few random characters: enough to recognise a key in a list. */
  start: string;
}

export type ApiKeyCheck =
  | { ok: true; hash: string }
  | { ok: false; reason: 'malformed' | 'checksum' | 'wrong_environment'; keyEnvironment?: DeploymentEnvironment };

export function generateApiKey(environment: DeploymentEnvironment): GeneratedApiKey {
  const prefix = API_KEY_PREFIXES[environment];
  const body = randomBase62(RANDOM_LENGTH);
  const key = `${prefix}${body}${checksum(prefix + body)}`;
  return { key, hash: hashApiKey(key), start: key.slice(0, prefix.length + VISIBLE_START_LENGTH) };
}

/**
 * Checks a presented key's shape, checksum and environment. Only a key that
 * passes is worth a storage lookup; the result carries the hash to look up.
 */
export function checkApiKey(candidate: string, environment: DeploymentEnvironment): ApiKeyCheck {
  const match = API_KEY_SHAPE.exec(candidate);
  if (match === null) return { ok: false, reason: 'malformed' };
  const keyEnvironment: DeploymentEnvironment = match[1] === 'prod' ? 'production' : 'staging';
  const prefix = API_KEY_PREFIXES[keyEnvironment];
  const rest = candidate.slice(prefix.length);
  const body = rest.slice(0, RANDOM_LENGTH);
  if (checksum(prefix + body) !== rest.slice(RANDOM_LENGTH)) return { ok: false, reason: 'checksum' };
  if (keyEnvironment !== environment) return { ok: false, reason: 'wrong_environment', keyEnvironment };
  return { ok: true, hash: hashApiKey(candidate) };
}

export function hashApiKey(key: string): string {
  // The one-shot form (Node >= 20.12, within our engines) costs less than createHash() for a short input.
  return hash('sha256', key, 'hex');
}

/** Replaces anything that looks like an API key with a marker. */
export function redactApiKeys(text: string): string {
  return text.replace(API_KEY_PATTERN, '[redacted-api-key]');
}

/** Whether `text` contains something shaped like one of our keys. */
export function looksLikeApiKey(text: string): boolean {
  return /so_(?:prod|stg)_/.test(text);
}

function checksum(text: string): string {
  let value = crc32(text);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62.charAt(value % 62) + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // Rejection sampling: 248 = 4 * 62, so bytes below it map uniformly.
      if (byte < 248) out += BASE62.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
}
