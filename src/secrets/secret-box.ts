import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import type { SecretsRepository } from './secrets-repository.js';

const SEALED_PREFIX = 'v1.';

/** What one box seals, named so that two boxes never share a key: each derives its own from its own material. */
export interface SecretBoxPurpose {
  /** The name the database-held key is kept under when none is configured (`webhook-secrets-key`). */
  keyName: string;
  /** Mixed into the key's derivation (`store-orders webhook secrets`). */
  label: string;
}

export interface SecretBoxDependencies {
  /** The configured key material (WEBHOOK_SECRETS_KEY, MAIL_SECRETS_KEY); undefined: a key generated once and kept in the database. */
  configuredKey: string | undefined;
  secretsRepository: SecretsRepository;
  clock: Clock;
}

/**
 * Encrypts text at rest (AES-256-GCM): the database holds only sealed text,
 * so a copy of it or of a backup does not disclose what was sealed (webhook
 * signing secrets, queued mail with its links). The key comes from the
 * configuration, or else is generated once and kept in the database (then
 * sealing guards against accidental disclosure of one column, not of the
 * whole database; configure the key to do better).
 */
export function createSecretBox({ keyName, label }: SecretBoxPurpose, { configuredKey, secretsRepository, clock }: SecretBoxDependencies) {
  let key: Promise<Buffer> | undefined;

  function keyOnce(): Promise<Buffer> {
    key ??= (async () => {
      const material = configuredKey ?? (await secretsRepository.getOrCreate(keyName, randomBytes(32).toString('base64url'), clock.now().toISOString()));
      return createHash('sha256').update(`${label}\0`).update(material).digest();
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
      if (!sealed.startsWith(SEALED_PREFIX)) throw new Error(`not sealed by the ${label} box`);
      const bytes = Buffer.from(body, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', await keyOnce(), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
