import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretsRepository } from '../../secrets/secrets-repository.js';
import type { Clock } from '../../shared/clock.js';

/** The database-held key's name, used when WEBHOOK_SECRETS_KEY is not configured. */
const KEY_SECRET_NAME = 'webhook-secrets-key';
const SEALED_PREFIX = 'v1.';

/** A new Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64 (what the standardwebhooks package reads). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Encrypts signing secrets at rest (AES-256-GCM): the database holds only
 * sealed text, so a copy of it or of a backup does not let anyone sign as
 * us. The key comes from WEBHOOK_SECRETS_KEY, or else is generated once and
 * kept in the database (then sealing guards against accidental disclosure
 * of one column, not of the whole database; configure the key to do better).
 */
export function createSecretBox({ configuredKey, secretsRepository, clock }: { configuredKey: string | undefined; secretsRepository: SecretsRepository; clock: Clock }) {
  let key: Promise<Buffer> | undefined;

  function keyOnce(): Promise<Buffer> {
    key ??= (async () => {
      const material = configuredKey ?? (await secretsRepository.getOrCreate(KEY_SECRET_NAME, randomBytes(32).toString('base64url'), clock.now().toISOString()));
      return createHash('sha256').update('store-orders webhook secrets\0').update(material).digest();
    })();
    key.catch(() => {
      key = undefined;
    });
    return key;
  }

  return {
    async seal(secret: string): Promise<string> {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', await keyOnce(), iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${SEALED_PREFIX}${iv.toString('base64url')}.${sealed.toString('base64url')}`;
    },
    async open(sealed: string): Promise<string> {
      const [, iv = '', body = ''] = sealed.split('.');
      if (!sealed.startsWith(SEALED_PREFIX)) throw new Error('not a sealed webhook secret');
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', await keyOnce(), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
