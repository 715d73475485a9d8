import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../../api-keys/api-key-scopes.js';
import type { ApiKey } from '../../../api-keys/api-keys-repository.js';
import { NotFoundError, ValidationError } from '../../../errors/errors.js';
import type { Clock } from '../../../shared/clock.js';
import { portalAuditContext } from '../portal-audit.js';
import { verifyEmailFirst } from './email-verification-pages.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';

const DAY_MS = 86_400_000;

/** The lifetimes the form offers; 90 days is preselected. */
const KEY_EXPIRIES = [
  { value: '7d', label: '7 days', ms: 7 * DAY_MS },
  { value: '30d', label: '30 days', ms: 30 * DAY_MS },
  { value: '90d', label: '90 days', ms: 90 * DAY_MS },
  { value: '1y', label: '1 year', ms: 365 * DAY_MS },
  { value: 'never', label: 'never', ms: undefined },
] as const;
const DEFAULT_EXPIRY = '90d';

/** How long a rolled key keeps working beside its replacement. */
const ROLL_GRACES = [
  { value: 'now', label: 'now', ms: 0 },
  { value: '1h', label: '1 hour', ms: 3_600_000 },
  { value: '24h', label: '24 hours', ms: DAY_MS },
  { value: '7d', label: '7 days', ms: 7 * DAY_MS },
] as const;

const KeyParams = Type.Object({ keyId: Type.String({ pattern: '^[0-9]{1,15}$' }) });
const CreateForm = Type.Object({
  _csrf: csrfField,
  name: formField(),
  scope: Type.Optional(Type.Union([formField(), Type.Array(formField(), { maxItems: 20 })])),
  expiresIn: formField(),
});
const RollForm = Type.Object({ _csrf: csrfField, grace: formField() });
const EmptyForm = Type.Object({ _csrf: csrfField });
const KeysQuery = Type.Object({ revoked: Type.Optional(Type.String({ maxLength: 10 })) });

/** A key as the table shows it. */
function keyRow(key: ApiKey, now: string) {
  const state = key.revokedAt !== undefined ? 'revoked' : key.expiresAt !== undefined && key.expiresAt <= now ? 'expired' : 'active';
  return {
    id: key.id,
    name: key.name ?? '(unnamed)',
    start: key.start,
    scopes: key.scopes.join(', '),
    created: formatInstant(key.createdAt),
    expires: state === 'revoked' ? `revoked ${formatInstant(key.revokedAt)}` : formatInstant(key.expiresAt, 'never'),
    lastUsed: formatInstant(key.lastUsedAt, 'never'),
    active: state === 'active',
  };
}

/** The checked scopes of the form: undefined when all are (such a key also holds scopes added later). */
function chosenScopes(field: string | string[] | undefined): ApiKeyScope[] | undefined {
  const names = field === undefined ? [] : Array.isArray(field) ? field : [field];
  if (names.some((name) => !(API_KEY_SCOPES as readonly string[]).includes(name))) throw new ValidationError('Choose scopes from the list.');
  const scopes = API_KEY_SCOPES.filter((scope) => names.includes(scope));
  if (scopes.length === 0) throw new ValidationError('Choose at least one scope.');
  return scopes.length === API_KEY_SCOPES.length ? undefined : scopes;
}

function expiryOf(value: string, clock: Clock): string | undefined {
  const choice = KEY_EXPIRIES.find((expiry) => expiry.value === value);
  if (choice === undefined) throw new ValidationError('Choose when the key expires from the list.');
  return choice.ms === undefined ? undefined : new Date(clock.now().getTime() + choice.ms).toISOString();
}

/**
 * `/keys` (signed in): the account's API keys, the form that creates one,
 * and the two-step roll and revoke. A new secret is shown once, in the
 * answer to the POST that made it (never in a URL or a redirect; the session
 * guard makes every answer `no-store`).
 */
export function registerKeysPages(scope: FastifyInstance, { render, services, clock }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  async function showKeys(request: FastifyRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const { user } = signedInUser(request);
    const now = clock.now().toISOString();
    const keys = (await services.apiKeys.listKeys(user.accountId)).map((key) => keyRow(key, now)).reverse();
    return render(
      request,
      reply,
      'keys',
      { title: 'API keys', keys, scopes: API_KEY_SCOPES, expiries: KEY_EXPIRIES, form: { name: '', scopes: API_KEY_SCOPES, expiresIn: DEFAULT_EXPIRY }, ...extra },
      status,
    );
  }

  /** The account's key `keyId`; another account's is not found, exactly like a missing one. */
  async function ownKey(request: FastifyRequest, keyId: string): Promise<ApiKey> {
    const { user } = signedInUser(request);
    const key = (await services.apiKeys.listKeys(user.accountId)).find((candidate) => candidate.id === Number(keyId));
    if (key === undefined) throw new NotFoundError('api_key_not_found', `API key ${keyId} does not exist.`);
    return key;
  }

  app.get('/keys', { schema: { querystring: KeysQuery } }, async (request, reply) =>
    showKeys(request, reply, request.query.revoked === '1' ? { notice: 'The key was revoked. Requests made with it are refused.' } : {}),
  );

  app.post('/keys', { schema: { body: CreateForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    if (!services.emailVerification.allows(user)) throw verifyEmailFirst();
    const { name, scope, expiresIn } = request.body;
    try {
      const scopes = chosenScopes(scope);
      const expiresAt = expiryOf(expiresIn, clock);
      const created = await services.apiKeys.createKey(
        { accountId: user.accountId, name, ...(scopes === undefined ? {} : { scopes }), ...(expiresAt === undefined ? {} : { expiresAt }) },
        portalAuditContext(request),
      );
      return await showKeys(request, reply, { newKey: { secret: created.secret, name: created.apiKey.name ?? '' } }, 201);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const names = scope === undefined ? [] : Array.isArray(scope) ? scope : [scope];
      return showKeys(request, reply, { error: error.message, form: { name, scopes: names, expiresIn } }, 400);
    }
  });

  app.get('/keys/:keyId/roll', { schema: { params: KeyParams } }, async (request, reply) => {
    const key = keyRow(await ownKey(request, request.params.keyId), clock.now().toISOString());
    return render(request, reply, 'key-roll', { title: 'Roll an API key', key, graces: ROLL_GRACES });
  });

  app.post('/keys/:keyId/roll', { schema: { params: KeyParams, body: RollForm } }, async (request, reply) => {
    const key = await ownKey(request, request.params.keyId);
    const grace = ROLL_GRACES.find((choice) => choice.value === request.body.grace);
    if (grace === undefined) {
      const row = keyRow(key, clock.now().toISOString());
      return render(request, reply, 'key-roll', { title: 'Roll an API key', key: row, graces: ROLL_GRACES, error: 'Choose how long the old key keeps working.' }, 400);
    }
    try {
      const rolled = await services.apiKeys.rollKey({ keyId: key.id, graceMs: grace.ms }, portalAuditContext(request));
      const until = grace.ms === 0 ? 'The old key stopped working now.' : `The old key works until ${formatInstant(rolled.old.expiresAt)}.`;
      return await showKeys(request, reply, { newKey: { secret: rolled.secret, name: rolled.apiKey.name ?? '' }, notice: `The key was rolled. ${until}` }, 201);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return showKeys(request, reply, { error: error.message }, 409);
    }
  });

  app.get('/keys/:keyId/revoke', { schema: { params: KeyParams } }, async (request, reply) => {
    const key = keyRow(await ownKey(request, request.params.keyId), clock.now().toISOString());
    return render(request, reply, 'key-revoke', { title: 'Revoke an API key', key });
  });

  app.post('/keys/:keyId/revoke', { schema: { params: KeyParams, body: EmptyForm } }, async (request, reply) => {
    const key = await ownKey(request, request.params.keyId);
    await services.apiKeys.revokeKey(key.id, portalAuditContext(request));
    return reply.redirect('/keys?revoked=1', 303);
  });
}
