import type { AccountsRepository } from '../accounts/accounts-repository.js';
import { SYSTEM_CONTEXT } from '../audit/audit-context.js';
import type { AuditContext } from '../audit/audit-repository.js';
import type { AuditRecorder } from '../audit/audit-service.js';
import type { DeploymentEnvironment } from '../config/config.js';
import { NotFoundError, UnavailableError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkText } from '../shared/user-text.js';
import { checkApiKey, generateApiKey } from './api-key-format.js';
import { API_KEY_SCOPES, type ApiKeyScope } from './api-key-scopes.js';
import type { ApiKey, ApiKeyPrincipal, ApiKeysRepository, KeyOwner } from './api-keys-repository.js';

const API_KEY_NAME_MAX = 100;
/** A roll reads again this often when another process changes the key between its read and its write. */
const ROLL_ATTEMPTS = 5;

export type Authentication =
  | { ok: true; principal: ApiKeyPrincipal }
  | { ok: false; code: 'invalid_api_key' | 'expired_api_key'; message: string };

export interface KeyLifetime {
  /** ISO 8601 UTC instant after which the key is refused; absent: never. */
  expiresAt?: string;
  /** Absent: every scope. */
  scopes?: readonly ApiKeyScope[];
}

interface Dependencies {
  apiKeysRepository: ApiKeysRepository;
  accountsRepository: AccountsRepository;
  clock: Clock;
  environment: DeploymentEnvironment;
  /** Creations, rolls and revocations are recorded once they have committed. */
  audit: AuditRecorder;
}

export function createApiKeysService({ apiKeysRepository, accountsRepository, clock, environment, audit }: Dependencies) {
  const recordKey = (
    context: AuditContext,
    accountId: number,
    action: 'authn_token_created' | 'authn_token_rolled' | 'authn_token_revoked',
    keyId: number,
    details: Record<string, string | number>,
  ) => audit.recordAfterChange({ ...context, accountId, action, target: { kind: 'api_key', id: String(keyId) }, details });

  return {
    /**
     * Issues a key for an account. The secret is returned here and only
     * here: storage keeps its SHA-256 hash and visible start. `context`
     * says who asked, for the audit trail (default: the system).
     */
    async createKey(
      input: { accountId: number; name?: string } & KeyLifetime,
      context: AuditContext = SYSTEM_CONTEXT,
    ): Promise<{ apiKey: ApiKey; secret: string }> {
      const name = input.name?.trim();
      if (name !== undefined) checkText('Key name', name, { min: 1, max: API_KEY_NAME_MAX });
      const now = clock.now().toISOString();
      const generated = generateApiKey(environment);
      const apiKey = await apiKeysRepository.create({
        accountId: input.accountId,
        name,
        hash: generated.hash,
        start: generated.start,
        createdAt: now,
        ...lifetime(input, now),
      });
      await recordKey(context, apiKey.accountId, 'authn_token_created', apiKey.id, keyFacts(apiKey));
      return { apiKey, secret: generated.key };
    },

    /**
     * Issues a new key with the old key's account, name and scopes, and keeps
     * the old one valid for `graceMs` more (0: it stops at once). The new key
     * expires at `expiresAt` if given, otherwise after the old key's lifetime
     * (if it had one).
     */
    async rollKey(
      input: { keyId: number; graceMs: number; expiresAt?: string },
      context: AuditContext = SYSTEM_CONTEXT,
    ): Promise<{ old: ApiKey; apiKey: ApiKey; secret: string }> {
      const nowDate = clock.now();
      const now = nowDate.toISOString();
      if (input.expiresAt !== undefined) lifetime({ expiresAt: input.expiresAt }, now);
      const generated = generateApiKey(environment);
      // Read, decide, then one conditional write that holds only if the key
      // is still as read; a key changed in between is read and decided again.
      for (let attempt = 0; attempt < ROLL_ATTEMPTS; attempt++) {
        const old = await apiKeysRepository.findById(input.keyId);
        if (old === undefined) throw new NotFoundError('api_key_not_found', `API key ${input.keyId} does not exist.`);
        const state = old.revokedAt !== undefined ? 'revoked' : old.expiresAt !== undefined && old.expiresAt <= now ? 'expired' : 'active';
        if (state !== 'active') throw new ValidationError(`API key ${input.keyId} is ${state} and cannot be rolled.`);
        // The replacement lives as long as the old key was meant to, unless told otherwise.
        const inherited =
          old.expiresAt === undefined ? undefined : new Date(nowDate.getTime() + (Date.parse(old.expiresAt) - Date.parse(old.createdAt))).toISOString();
        const expiresAt = input.expiresAt ?? inherited;
        const result = await apiKeysRepository.roll(old, {
          key: {
            accountId: old.accountId,
            name: old.name,
            hash: generated.hash,
            start: generated.start,
            createdAt: now,
            scopes: old.scopes,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
          oldExpiresAt: new Date(nowDate.getTime() + input.graceMs).toISOString(),
        });
        if (result.outcome === 'rolled') {
          const { old: rolled, created } = result;
          await recordKey(context, rolled.accountId, 'authn_token_rolled', rolled.id, {
            newKeyId: created.id,
            ...(rolled.expiresAt === undefined ? {} : { oldKeyExpiresAt: rolled.expiresAt }),
            ...keyFacts(created),
          });
          return { old: rolled, apiKey: created, secret: generated.key };
        }
      }
      throw new UnavailableError(`API key ${input.keyId} kept changing while it was being rolled; try again.`);
    },

    async listKeys(accountId: number): Promise<ApiKey[]> {
      if ((await accountsRepository.findById(accountId)) === undefined) {
        throw new NotFoundError('account_not_found', `Account ${accountId} does not exist.`);
      }
      return apiKeysRepository.listByAccount(accountId);
    },

    /** Revokes a key; revoking a revoked key is a no-op reported as such. */
    async revokeKey(keyId: number, context: AuditContext = SYSTEM_CONTEXT): Promise<'revoked' | 'already_revoked'> {
      const outcome = await apiKeysRepository.revoke(keyId, clock.now().toISOString());
      if (outcome === 'not_found') throw new NotFoundError('api_key_not_found', `API key ${keyId} does not exist.`);
      if (outcome === 'revoked') {
        // The account is read after the revocation has committed: a key never changes account.
        const key = await apiKeysRepository.findById(keyId);
        if (key !== undefined) await recordKey(context, key.accountId, 'authn_token_revoked', keyId, {});
      }
      return outcome;
    },

    /**
     * Which key and account a presented token names, whether or not it
     * works (expired and revoked keys included), for the request logs of
     * requests it failed on; undefined for a token that is no key of ours.
     */
    async identify(token: string): Promise<KeyOwner | undefined> {
      const check = checkApiKey(token, environment);
      if (!check.ok) return undefined;
      const principal = await apiKeysRepository.findActiveByHash(check.hash);
      if (principal !== undefined) return { keyId: principal.keyId, accountId: principal.accountId };
      return apiKeysRepository.findOwnerByHash(check.hash);
    },

    /**
     * Resolves a presented bearer token to its account. Malformed tokens,
     * bad checksums and other environments' keys are refused before storage
     * is consulted. Messages never contain the token.
     */
    async authenticate(token: string): Promise<Authentication> {
      const check = checkApiKey(token, environment);
      if (!check.ok) {
        if (check.reason === 'wrong_environment') {
          return { ok: false, code: 'invalid_api_key', message: `This API key was issued for ${check.keyEnvironment} and is not valid in ${environment}.` };
        }
        return { ok: false, code: 'invalid_api_key', message: 'The API key is malformed.' };
      }
      const principal = await apiKeysRepository.findActiveByHash(check.hash);
      if (principal === undefined) return { ok: false, code: 'invalid_api_key', message: 'The API key is unknown or has been revoked.' };
      if (principal.expiresAt !== undefined && principal.expiresAt <= clock.now().toISOString()) {
        return { ok: false, code: 'expired_api_key', message: `The API key expired at ${principal.expiresAt}.` };
      }
      return { ok: true, principal };
    },
  };
}

/** What the audit trail says about a key: never its secret or hash. */
function keyFacts(key: ApiKey): Record<string, string> {
  return {
    ...(key.name === undefined ? {} : { name: key.name }),
    scopes: key.scopes.join(' '),
    ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
  };
}

/** Checks a requested lifetime against `now` and fills in the default scopes. */
function lifetime(input: KeyLifetime, now: string): { expiresAt?: string; scopes: readonly ApiKeyScope[] } {
  if (input.expiresAt !== undefined && input.expiresAt <= now) throw new ValidationError('The expiry must be in the future.');
  if (input.scopes !== undefined && input.scopes.length === 0) throw new ValidationError('A key needs at least one scope.');
  const scopes = input.scopes ?? API_KEY_SCOPES;
  return input.expiresAt === undefined ? { scopes } : { scopes, expiresAt: input.expiresAt };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
