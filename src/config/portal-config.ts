import { parsePortalUrl } from './config-formats.js';
import type { EnvironmentValues } from './config-schema.js';

export interface PortalConfig {
  /** The portal host's own listener (same HOST as the store host); null when PORTAL_PORT=off (the CLI's `users` commands still work). */
  readonly port: number | null;
  /** Where browsers reach the portal (an origin, no trailing slash); absent: derived from HOST and the port listened on. */
  readonly publicUrl?: string;
  readonly signUp: 'open' | 'closed';
  /** PORTAL_REQUIRE_VERIFIED_EMAIL: API keys wait for a verified address. */
  readonly requireVerifiedEmail: boolean;
  /** PORTAL_REQUIRE_TWO_STEP: every user must turn two-step sign-in on before using the portal. */
  readonly requireTwoStep: boolean;
  readonly session: { readonly idleMs: number; readonly absoluteMs: number };
  readonly throttle: { readonly perEmail: number; readonly perAddress: number; readonly windowMs: number };
  /** PORTAL_BREACHED_PASSWORDS_URL (and its timeout): absent, no breached-password check. */
  readonly breachedPasswords?: { readonly rangeUrl: string; readonly timeoutMs: number };
  /** PORTAL_SECRETS_KEY: seals authenticator-app secrets; absent: a key kept in the database. */
  readonly secretsKey?: string;
}

/** The portal's configuration from the accepted values. */
export function portalFrom(values: EnvironmentValues['portal']): PortalConfig {
  const publicUrl = values.PORTAL_PUBLIC_URL === undefined ? undefined : parsePortalUrl(values.PORTAL_PUBLIC_URL);
  return {
    port: values.PORTAL_PORT === 'off' ? null : values.PORTAL_PORT,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    signUp: values.PORTAL_SIGNUP,
    requireVerifiedEmail: values.PORTAL_REQUIRE_VERIFIED_EMAIL === 'true',
    requireTwoStep: values.PORTAL_REQUIRE_TWO_STEP === 'true',
    session: { idleMs: values.PORTAL_SESSION_IDLE_MINUTES * 60_000, absoluteMs: values.PORTAL_SESSION_ABSOLUTE_HOURS * 3_600_000 },
    throttle: {
      perEmail: values.PORTAL_THROTTLE_PER_EMAIL,
      perAddress: values.PORTAL_THROTTLE_PER_ADDRESS,
      windowMs: values.PORTAL_THROTTLE_WINDOW_MINUTES * 60_000,
    },
    ...(values.PORTAL_SECRETS_KEY === undefined ? {} : { secretsKey: values.PORTAL_SECRETS_KEY }),
    ...(values.PORTAL_BREACHED_PASSWORDS_URL === undefined
      ? {}
      : { breachedPasswords: { rangeUrl: values.PORTAL_BREACHED_PASSWORDS_URL, timeoutMs: values.PORTAL_BREACHED_PASSWORDS_TIMEOUT_MS } }),
  };
}
