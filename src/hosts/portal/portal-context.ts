import type { SignInMetrics } from './portal-metrics.js';
import { Type } from 'typebox';
import type { Services } from '../../services.js';
import type { Clock } from '../../shared/clock.js';
import type { AttemptThrottle } from '../../users/attempt-throttle.js';
import type { PageRenderer } from './portal-render.js';
import type { SessionCookies } from './portal-session.js';
import type { CookieNames } from './portal-security.js';

/** The API's addresses a signed-in user is shown (production and, when configured, staging), each ending in /v1. */
export interface ApiAddresses {
  production: string;
  staging?: string;
}

/**
 * What every page module receives from buildPortalApp: the services, the
 * renderer, the session cookies, the sign-in throttle and the portal's own
 * origin. A page module exports `register<Name>Pages(scope, context)` and is
 * registered in portal-app.ts, in the public scope or behind the session guard.
 */
export interface PortalContext {
  services: Services;
  render: PageRenderer;
  sessions: SessionCookies;
  /** The portal's cookie names (and whether they are Secure). */
  cookies: CookieNames;
  /** services.attemptThrottle: one budget in the database for every process. */
  throttle: AttemptThrottle;
  /** The portal's public origin (PORTAL_PUBLIC_URL, or derived from HOST and the port listened on). */
  origin: () => string;
  api: () => ApiAddresses;
  /** The services' clock: key expiries and the times pages show. */
  clock: Clock;
  /** Counts a sign-in attempt's result (a metric; nothing when metrics are off). */
  signIns: SignInMetrics['signIn'];
}

/** Longest value any portal form field takes; longer ones get the 400 page. */
const FIELD_MAX_LENGTH = 4096;

/** A form field in a body schema: every HTML form field arrives as a string. */
export const formField = () => Type.String({ maxLength: FIELD_MAX_LENGTH });

/**
 * The CSRF token every form carries as `_csrf` (include the `csrf` partial
 * in the form). Optional in the schema: the form protection
 * (portal-security.ts) checks it before validation, so a form without it
 * gets 403, not 400.
 */
export const csrfField = Type.Optional(Type.String({ maxLength: 200 }));
