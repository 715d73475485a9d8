import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { ValidationError } from '../../../errors/errors.js';
import type { RelyingParty } from '../../../users/passkeys-service.js';
import type { Services } from '../../../services.js';
import { recordPortalAction, recordUserEvent } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { safeNext, signedInUser } from '../portal-session.js';
import { refuseWhileThrottled, spendAttempt } from './sign-in-pages.js';

/** The one answer to every failed passkey sign-in: it never says whether an account or a passkey exists. */
const PASSKEY_SIGN_IN_FAILED = 'That passkey could not sign you in. Try again, or sign in with your email and password.';

/** The form that confirms the user before a passkey is added (settings-pages.ts): its answer is the confirmation page, then back to /settings. */
export const PASSKEY_CONFIRM_PATH = '/settings/passkeys/confirm';

/** An attestation with its certificates fits easily; the portal's forms are bounded the same way. */
const JSON_BODY_LIMIT = 64 * 1024;

const b64 = () => Type.String({ maxLength: 16_384, pattern: '^[A-Za-z0-9_-]*$' });
const common = {
  id: b64(),
  rawId: b64(),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
};
const Transports = Type.Array(
  Type.Union(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'].map((transport) => Type.Literal(transport))),
  { maxItems: 10 },
);
const RegistrationResponse = Type.Object({
  ...common,
  response: Type.Object({
    clientDataJSON: b64(),
    attestationObject: b64(),
    authenticatorData: Type.Optional(b64()),
    transports: Type.Optional(Transports),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
    publicKey: Type.Optional(b64()),
  }),
});
const AuthenticationResponse = Type.Object({
  ...common,
  response: Type.Object({ clientDataJSON: b64(), authenticatorData: b64(), signature: b64(), userHandle: Type.Optional(b64()) }),
});
const RegisterBody = Type.Object({ name: Type.String({ maxLength: 200 }), response: RegistrationResponse });
/** The options steps send `{}`: every POST of the portal has a body schema (a route without one refuses a body). */
const OptionsBody = Type.Object({});
const SignInBody = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })), response: AuthenticationResponse });

/** The relying party is the portal's public origin: its hostname is the RP ID (WebAuthn refuses an IP address, hence localhost by default). */
function relyingParty(origin: string): RelyingParty {
  const url = new URL(origin);
  return { id: url.hostname, origin: url.origin, name: 'Store Orders' };
}

/**
 * The user a passkey assertion posted in a form field (JSON, as
 * portal/static/passkeys.js puts it there) proves, after the same checks as
 * a passkey sign-in (a challenge of /passkeys/sign-in/options, used once);
 * undefined for anything else. A step that must be confirmed by the user's
 * passkey (a reset they asked for) compares it with whose step it is.
 */
export async function passkeyAssertedUser({ services, origin }: Pick<PortalContext, 'services' | 'origin'>, field: string | undefined): Promise<number | undefined> {
  if (field === undefined || field === '') return undefined;
  let response: unknown;
  try {
    response = JSON.parse(field);
  } catch {
    return undefined;
  }
  if (!Value.Check(AuthenticationResponse, response)) return undefined;
  return (await services.passkeys.signIn(response, relyingParty(origin())))?.id;
}

/** The settings page's list of the user's passkeys. */
export async function passkeyRows(services: Pick<Services, 'passkeys'>, userId: number) {
  return (await services.passkeys.list(userId)).map((passkey) => ({
    name: passkey.name,
    created: formatInstant(passkey.createdAt),
    lastUsed: formatInstant(passkey.lastUsedAt, 'never'),
  }));
}

/**
 * Passkeys (WebAuthn): the JSON steps portal/static/passkeys.js takes.
 * Register (signed in): options, then the authenticator's answer. Sign in
 * (public): options, then the answer, which starts a session like a
 * password sign-in. Each POST passes the form protection (Origin and the
 * CSRF token, sent as the csrf-token header).
 */
/** The passkey steps post JSON (the rest of the portal posts forms): a scope of their own parses it, with Fastify's prototype-poisoning guard. */
function withJson(scope: FastifyInstance, routes: (json: FastifyInstance) => void): void {
  void scope.register(async (json) => {
    json.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT }, json.getDefaultJsonParser('error', 'error'));
    routes(json);
  });
}

export function registerPasskeySignInPages(scope: FastifyInstance, context: PortalContext): void {
  withJson(scope, (json) => passkeySignInRoutes(json, context));
}

function passkeySignInRoutes(scope: FastifyInstance, context: PortalContext): void {
  const { services, sessions, throttle, origin } = context;
  const publicRoutes = scope.withTypeProvider<TypeBoxTypeProvider>();

  publicRoutes.post('/passkeys/sign-in/options', { schema: { body: OptionsBody } }, async (request, reply) => {
    await refuseWhileThrottled(context, request);
    return reply.header('cache-control', 'no-store').send(await services.passkeys.signInOptions(relyingParty(origin())));
  });

  publicRoutes.post('/passkeys/sign-in', { schema: { body: SignInBody } }, async (request, reply) => {
    await spendAttempt(context, request, { signIn: 'passkey' });
    reply.header('cache-control', 'no-store');
    const user = await services.passkeys.signIn(request.body.response, relyingParty(origin()));
    context.signIns('passkey', user === undefined ? 'failure' : 'success');
    if (user === undefined) {
      return reply.code(401).send({ message: PASSKEY_SIGN_IN_FAILED });
    }
    await throttle.succeeded({ address: request.ip });
    const accountId = await sessions.start(request, reply, user.id);
    await recordPortalAction(services.audit, request, { ...user, accountId }, 'authn_login_success', { details: { method: 'passkey' } });
    return reply.send({ redirect: safeNext(request.body.next) });
  });

}

/** The signed-in half: registering a passkey from /settings. */
export function registerPasskeySettingsPages(scope: FastifyInstance, context: PortalContext): void {
  withJson(scope, (json) => passkeySettingsRoutes(json, context));
}

/**
 * What a registration step answers when the session's user last proved who
 * they are more than REAUTHENTICATION_WINDOW_MS ago: 401 and where to
 * confirm (portal/static/passkeys.js posts its form there, which answers
 * with the "Confirm it is you" page).
 */
const CONFIRM_FIRST = { message: 'Confirm it is you before adding a passkey.', confirm: PASSKEY_CONFIRM_PATH } as const;

function passkeySettingsRoutes(scope: FastifyInstance, { services, origin }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  /** A passkey is a way to sign in: adding one needs a recent authentication, as ending a session does (ASVS 5.0 7.5.1, 7.5.3). Both steps check: the options may have been asked within the window and the answer sent after it. */
  const stale = (request: FastifyRequest) => !services.sessions.recentlyAuthenticated(signedInUser(request));

    app.post('/passkeys/register/options', { schema: { body: OptionsBody } }, async (request: FastifyRequest, reply) => {
      const { user } = signedInUser(request);
      if (stale(request)) return reply.code(401).header('cache-control', 'no-store').send(CONFIRM_FIRST);
      return reply.send(await services.passkeys.registrationOptions(user, relyingParty(origin())));
    });

    app.post('/passkeys/register', { schema: { body: RegisterBody } }, async (request, reply) => {
      const { user } = signedInUser(request);
      if (stale(request)) return reply.code(401).header('cache-control', 'no-store').send(CONFIRM_FIRST);
      try {
        const passkey = await services.passkeys.register(user, request.body.response, request.body.name, relyingParty(origin()));
        await recordUserEvent(services.team, request, user, 'authn_passkey_added', { target: { kind: 'passkey', id: String(passkey.id) }, details: { name: passkey.name } });
        await services.users.notifySecurityChange(user.id, 'passkey_added', origin());
        return await reply.send({ redirect: '/settings?passkey=added' });
      } catch (error) {
        if (error instanceof ValidationError) return reply.code(400).send({ message: error.message });
        throw error;
      }
    });
}
