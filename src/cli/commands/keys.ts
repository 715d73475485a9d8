import { API_KEY_SCOPES, parseScopes, type ApiKeyScope } from '../../api-keys/api-key-scopes.js';
import type { ApiKey } from '../../api-keys/api-keys-repository.js';
import { OPERATOR_CONTEXT } from '../../audit/audit-context.js';
import { parseDuration } from '../../shared/duration.js';
import {
  accountIdOption,
  EXPIRY_OPTIONS,
  expiryOption,
  JSON_OPTION,
  optionalString,
  positiveInteger,
  UsageError,
} from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

function apiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    accountId: k.accountId,
    name: k.name ?? null,
    start: k.start,
    scopes: k.scopes,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt ?? null,
    lastUsedAt: k.lastUsedAt ?? null,
    revokedAt: k.revokedAt ?? null,
  };
}

const KEY_ID = { name: 'keyId', description: 'The key\'s id, as keys list shows it' };

export const keysCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'keys create',
    summary: 'Issue an API key (the secret is shown once)',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account the key acts for', required: true },
      name: { type: 'string', value: '<label>', description: 'A label to tell keys apart' },
      scopes: {
        type: 'string',
        value: '<s1,s2>',
        description: `Comma-separated scopes among ${API_KEY_SCOPES.join(', ')} (default: all)`,
      },
      ...EXPIRY_OPTIONS,
      ...JSON_OPTION,
    },
    details: ['Without --expires-in or --expires-at the key never expires.'],
    migrateFirst: true,
    async run({ container, values, print }) {
      const scopesText = optionalString(values, 'scopes');
      let scopes: ApiKeyScope[] | undefined;
      if (scopesText !== undefined) {
        const parsed = parseScopes(scopesText);
        if (!parsed.ok) throw new UsageError(`--scopes: unknown scope "${parsed.unknown}"; known: ${API_KEY_SCOPES.join(', ')}`);
        scopes = parsed.scopes;
      }
      const { apiKey, secret } = await container.services.apiKeys.createKey({
        accountId: accountIdOption(values),
        name: optionalString(values, 'name'),
        ...(scopes === undefined ? {} : { scopes }),
        ...expiryOption(values),
      }, OPERATOR_CONTEXT);
      print.result(
        { ...apiKeyJson(apiKey), key: secret },
        `Created API key ${apiKey.id} for account ${apiKey.accountId}:\n\n  ${secret}\n\n` +
          'Store it now: it is shown only this once and cannot be recovered.',
      );
    },
  },
  {
    kind: 'database',
    name: 'keys list',
    summary: 'List an account\'s keys (never the secrets)',
    options: { account: { type: 'string', value: '<id>', description: 'The account whose keys to list', required: true }, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, print }) {
      const keys = await container.services.apiKeys.listKeys(accountIdOption(values));
      print.result(
        { keys: keys.map(apiKeyJson) },
        keys.length === 0
          ? 'No keys.'
          : keys
              .map(
                (k) =>
                  `${k.id}\t${k.start}…\t${k.name ?? ''}\t${k.scopes.join(',')}\tcreated ${k.createdAt}` +
                  `${k.expiresAt ? `\texpires ${k.expiresAt}` : ''}${k.lastUsedAt ? `\tlast used ${k.lastUsedAt}` : ''}` +
                  `${k.revokedAt ? `\trevoked ${k.revokedAt}` : ''}`,
              )
              .join('\n'),
      );
    },
  },
  {
    kind: 'database',
    name: 'keys roll',
    summary: 'Issue a replacement key; the old one keeps working for the grace period',
    positionals: [KEY_ID],
    options: {
      grace: { type: 'string', value: '<24h>', description: 'How long the old key keeps working (default 24h; 0 ends it at once)' },
      ...EXPIRY_OPTIONS,
      ...JSON_OPTION,
    },
    details: [
      'The new key has the old key\'s account, name and scopes, and (without --expires-in or --expires-at) the old key\'s lifetime from now.',
      'A revoked or expired key cannot be rolled.',
    ],
    migrateFirst: true,
    async run({ container, values, args, print }) {
      const keyId = positiveInteger(args[0] ?? '', 'keyId');
      const graceMs = parseDuration(optionalString(values, 'grace') ?? '24h');
      if (graceMs === undefined) throw new UsageError('--grace must be a duration such as 24h, 30m or 0');
      const { old, apiKey, secret } = await container.services.apiKeys.rollKey({ keyId, graceMs, ...expiryOption(values) }, OPERATOR_CONTEXT);
      print.result(
        { ...apiKeyJson(apiKey), key: secret, replaced: apiKeyJson(old) },
        `Created API key ${apiKey.id} to replace key ${old.id}:\n\n  ${secret}\n\n` +
          `Key ${old.id} keeps working until ${old.expiresAt ?? 'never'}.\n` +
          'Store the new key now: it is shown only this once and cannot be recovered.',
      );
    },
  },
  {
    kind: 'database',
    name: 'keys revoke',
    summary: 'Revoke a key',
    positionals: [KEY_ID],
    options: JSON_OPTION,
    migrateFirst: true,
    async run({ container, args, print }) {
      const keyId = positiveInteger(args[0] ?? '', 'keyId');
      const outcome = await container.services.apiKeys.revokeKey(keyId, OPERATOR_CONTEXT);
      print.result(
        { id: keyId, revoked: true, alreadyRevoked: outcome === 'already_revoked' },
        outcome === 'revoked' ? `Revoked API key ${keyId}.` : `API key ${keyId} was already revoked.`,
      );
    },
  },
];
