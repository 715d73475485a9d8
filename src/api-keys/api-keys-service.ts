import type { AccountsRepository } from '../accounts/accounts-repository.js';
import type { DeploymentEnvironment } from '../config/config.js';
import { NotFoundError, ValidationError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkApiKey, generateApiKey } from './api-key-format.js';
import type { ApiKey, ApiKeyPrincipal, ApiKeysRepository } from './api-keys-repository.js';

export const API_KEY_NAME_MAX = 100;

export type Authentication =
  | { ok: true; principal: ApiKeyPrincipal }
  | { ok: false; message: string };

interface Dependencies {
  apiKeysRepository: ApiKeysRepository;
  accountsRepository: AccountsRepository;
  clock: Clock;
  environment: DeploymentEnvironment;
}

export function createApiKeysService({ apiKeysRepository, accountsRepository, clock, environment }: Dependencies) {
  return {
    /**
     * Issues a key for an account. The secret is returned here and only
     * here: storage keeps its SHA-256 hash and visible start.
     */
    async createKey(input: { accountId: number; name?: string }): Promise<{ apiKey: ApiKey; secret: string }> {
      const name = input.name?.trim();
      if (name !== undefined && (name.length === 0 || name.length > API_KEY_NAME_MAX || /\p{Cc}/u.test(name))) {
        throw new ValidationError(`Key name must be 1 to ${API_KEY_NAME_MAX} characters with no control characters.`);
      }
      const generated = generateApiKey(environment);
      const apiKey = await apiKeysRepository.create({
        accountId: input.accountId,
        name,
        hash: generated.hash,
        start: generated.start,
        createdAt: clock.now().toISOString(),
      });
      return { apiKey, secret: generated.key };
    },

    async listKeys(accountId: number): Promise<ApiKey[]> {
      if ((await accountsRepository.findById(accountId)) === undefined) {
        throw new NotFoundError('account_not_found', `Account ${accountId} does not exist.`);
      }
      return apiKeysRepository.listByAccount(accountId);
    },

    /** Revokes a key; revoking a revoked key is a no-op reported as such. */
    async revokeKey(keyId: number): Promise<'revoked' | 'already_revoked'> {
      const outcome = await apiKeysRepository.revoke(keyId, clock.now().toISOString());
      if (outcome === 'not_found') throw new NotFoundError('api_key_not_found', `API key ${keyId} does not exist.`);
      return outcome;
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
          return { ok: false, message: `This API key was issued for ${check.keyEnvironment} and is not valid in ${environment}.` };
        }
        return { ok: false, message: 'The API key is malformed.' };
      }
      const principal = await apiKeysRepository.findActiveByHash(check.hash);
      return principal === undefined
        ? { ok: false, message: 'The API key is unknown or has been revoked.' }
        : { ok: true, principal };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
