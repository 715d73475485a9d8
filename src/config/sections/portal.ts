import { Type } from 'typebox';
import { CURSOR_SECRET_MIN_LENGTH, PRINTABLE, parsePortalUrl } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): the self-service portal. */

export const portal = Type.Object(
  {
    PORTAL_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], {
      default: 3002,
      description: 'The self-service portal\'s port (docs/portal.md), on the same `HOST` (`0` picks a free one); `off` disables the portal',
    }),
    PORTAL_PUBLIC_URL: Type.Optional(
      Type.Refine(
        Type.String({
          description:
            'Where browsers reach the portal (absolute http(s), no path, query or fragment): links, the Origin check and cookies use it; `https` makes the session cookie `Secure` and `__Host-` prefixed. ' +
            'Unset: `http://localhost:<port>` when `HOST` is a loopback address, else `http://<HOST>:<port>`',
        }),
        (url) => parsePortalUrl(url) !== undefined,
        () => 'PORTAL_PUBLIC_URL must be an absolute http(s) URL without path, query or fragment, e.g. https://portal.store.example.com',
      ),
    ),
    PORTAL_SIGNUP: Type.Enum(['open', 'closed'], {
      default: 'open',
      description: '`open`: anyone may create an account at `/sign-up`; `closed`: only with a link from `store-orders users invite`',
    }),
    PORTAL_REQUIRE_VERIFIED_EMAIL: Type.Union([Type.Literal('false'), Type.Literal('true')], {
      default: 'false',
      description: '`true`: a portal user creates API keys only once they followed the link mailed to their address (docs/portal.md, "Email verification"); `false`: the banner asks, nothing waits',
    }),
    PORTAL_REQUIRE_TWO_STEP: Type.Union([Type.Literal('false'), Type.Literal('true')], {
      default: 'false',
      description: '`true`: every portal user must turn on two-step sign-in (an authenticator app); until they do, signing in leads only to Settings to set it up (docs/portal.md, "Two-step sign-in"). `false`: each user chooses',
    }),
    PORTAL_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 30, description: 'A portal session unused this long ends' }),
    PORTAL_SESSION_ABSOLUTE_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12, description: 'A portal session ends this long after sign-in, however active' }),
    PORTAL_THROTTLE_PER_EMAIL: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 5, description: 'Failed sign-ins one email may take per throttle window (one budget for every process: kept in the database)' }),
    PORTAL_THROTTLE_PER_ADDRESS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 30, description: 'Failed sign-ins, sign-ups and password resets one client address may make per throttle window (one budget for every process)' }),
    PORTAL_THROTTLE_WINDOW_MINUTES: Type.Integer({ minimum: 1, maximum: 1440, default: 15, description: 'The sign-in throttle\'s window' }),
    PORTAL_BREACHED_PASSWORDS_URL: Type.Optional(
      Type.Refine(
        Type.String({
          description:
            'A Pwned Passwords range API (e.g. `https://api.pwnedpasswords.com/range/`, or a mirror you run): every new portal password is checked against breached ones, sending only the first 5 hex characters of its SHA-1, appended to the URL (docs/portal.md, "Breached passwords"). Unset: no check, nothing leaves the server',
        }),
        (url) => /^https?:\/\/[^?#]*\/$/.test(url) && URL.canParse(url),
        () => 'PORTAL_BREACHED_PASSWORDS_URL must be an absolute http(s) URL ending in / (the 5-character prefix is appended), e.g. https://api.pwnedpasswords.com/range/',
      ),
    ),
    PORTAL_BREACHED_PASSWORDS_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 60_000,
      default: 3000,
      description: 'How long a password change waits for the breached-password check; later, the password is accepted and the miss counted (`store_breached_password_checks_total{result="unavailable"}`)',
    }),
    PORTAL_SECRETS_KEY: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: "Key that encrypts the secrets of portal users' authenticator apps (two-step sign-in) in the database; unset: a key generated once and kept in the database",
        errorMessage: `PORTAL_SECRETS_KEY must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
  },
  { title: 'Portal' },
);
