import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretsRepository } from '../secrets/secrets-repository.js';
import type { Clock } from '../shared/clock.js';
import { parseInt64 } from '../shared/int64.js';

/**
 * What a cursor of any listing of the API says (v2 orders, events, the
 * audit trail): where the next page starts, for whom, and for which listing
 * and filters (each listing puts its own digest there, so a cursor never
 * crosses listings).
 */
export interface CursorPosition {
  accountId: number;
  /** The listing's digest of the filters the walk started with. */
  filterDigest: string;
  /** The id (or position) of the last item on the previous page. */
  afterId: bigint;
  /** For a listing keyed by text (webhook endpoints: `we_…`), the last item's key; letters, digits and `_`, at most 64. */
  afterKey?: string;
}

const TEXT_KEY = /^[A-Za-z0-9_]{1,64}$/;

export interface CursorCodec {
  encode(position: CursorPosition): Promise<string>;
  /** The position, or undefined when the text is malformed or its MAC is not ours. */
  decode(text: string): Promise<CursorPosition | undefined>;
  /** Changes when the signing key changes, so that ETags of pages that carry a cursor do too. */
  signingKeyId(): Promise<string>;
}

/**
 * The name of the database-held key used when CURSOR_SECRET is not
 * configured, and the signing domain: both kept from when only the v2
 * orders listing had cursors, so that stored keys and issued cursors stay
 * valid.
 */
const CURSOR_SECRET_NAME = 'orders-cursor-hmac';

const MAC_BYTES = 16;
const DOMAIN = 'store-orders/v2/orders-cursor';
const SHAPE = /^[A-Za-z0-9_-]{1,400}\.[A-Za-z0-9_-]{22}$/;

/**
 * Cursors are `base64url(payload).base64url(HMAC-SHA256(key, payload))`,
 * truncated to 128 bits. The payload binds the account and the filter set,
 * so a cursor altered, forged, or carried to another account or to other
 * filters is refused before any query runs.
 *
 * `secrets` are the configured keys (first signs, all verify); when empty, a
 * random key is generated once and shared through the database, so several
 * processes on one database accept each other's cursors with no set-up.
 */
export function createCursorCodec({
  secrets,
  secretsRepository,
  clock,
}: {
  secrets: readonly string[];
  secretsRepository: SecretsRepository;
  clock: Clock;
}): CursorCodec {
  // A derived key, so that the operator's secret is never used raw and could
  // safely serve other purposes under another label.
  const derive = (secret: string) => createHmac('sha256', secret).update(DOMAIN).digest();
  let keys: Promise<Buffer[]> | undefined;
  const loadKeys = (): Promise<Buffer[]> => {
    keys ??= (async () => {
      if (secrets.length > 0) return secrets.map(derive);
      const stored = await secretsRepository.getOrCreate(CURSOR_SECRET_NAME, randomBytes(32).toString('base64url'), clock.now().toISOString());
      return [derive(stored)];
    })();
    // A failed load (database down) must not be remembered.
    keys.catch(() => (keys = undefined));
    return keys;
  };
  const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  // Hashed once per loaded keys, not per listing request (every v2 page's ETag names it).
  let keyId: Promise<string> | undefined;

  return {
    async encode({ accountId, filterDigest: digest, afterId, afterKey }) {
      const [signing] = await loadKeys();
      if (signing === undefined) throw new Error('no cursor signing key');
      if (afterKey !== undefined && !TEXT_KEY.test(afterKey)) throw new Error('a cursor key must be letters, digits and _');
      const payload = Buffer.from(JSON.stringify({ a: accountId, f: digest, k: afterId.toString(), ...(afterKey === undefined ? {} : { t: afterKey }) })).toString('base64url');
      return `${payload}.${mac(signing, payload).toString('base64url')}`;
    },

    async decode(text) {
      if (!SHAPE.test(text)) return undefined;
      const [payload = '', signature = ''] = text.split('.');
      const presented = Buffer.from(signature, 'base64url');
      // Base64's last character carries spare bits a decoder ignores: only the
      // canonical spelling is ours, so no two texts are the same cursor.
      if (presented.length !== MAC_BYTES || presented.toString('base64url') !== signature) return undefined;
      if (Buffer.from(payload, 'base64url').toString('base64url') !== payload) return undefined;
      const accepted = (await loadKeys()).some((key) => timingSafeEqual(mac(key, payload), presented));
      if (!accepted) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      if (typeof parsed !== 'object' || parsed === null) return undefined;
      const { a, f, k, t } = parsed as Record<string, unknown>;
      const afterId = typeof k === 'string' ? parseInt64(k) : undefined;
      if (!Number.isSafeInteger(a) || typeof f !== 'string' || afterId === undefined) return undefined;
      if (t !== undefined && (typeof t !== 'string' || !TEXT_KEY.test(t))) return undefined;
      return { accountId: a as number, filterDigest: f, afterId, ...(t === undefined ? {} : { afterKey: t }) };
    },

    signingKeyId() {
      if (keyId === undefined) {
        keyId = loadKeys().then(([signing]) => createHash('sha256').update(signing ?? Buffer.alloc(0)).digest('base64url').slice(0, 11));
        // Like the keys themselves: a failed load is not remembered.
        keyId.catch(() => (keyId = undefined));
      }
      return keyId;
    },
  };
}
