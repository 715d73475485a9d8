import { randomBytes } from 'node:crypto';
import { createSecretBox, type SecretBox, type SecretBoxDependencies } from '../../secrets/secret-box.js';

export type { SecretBox } from '../../secrets/secret-box.js';

/** A new Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64 (what the standardwebhooks package reads). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * The box that keeps signing secrets sealed at rest (secrets/secret-box.ts):
 * its key is WEBHOOK_SECRETS_KEY, or else one generated once and kept in the
 * database, so a copy of the database or of a backup does not let anyone
 * sign as us.
 */
export function createWebhookSecretBox(dependencies: SecretBoxDependencies): SecretBox {
  return createSecretBox({ keyName: 'webhook-secrets-key', label: 'store-orders webhook secrets' }, dependencies);
}
