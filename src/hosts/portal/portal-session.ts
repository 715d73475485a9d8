import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionsService, SignedIn } from '../../users/sessions-service.js';
import type { CookieNames } from './portal-security.js';
import { hasControlCharacter } from '../../shared/user-text.js';
import type { Membership } from '../../users/team/team-repository.js';
import type { AuditRecorder } from '../../audit/audit-service.js';
import { checkRole } from './portal-roles.js';
import { PortalRefusal } from './portal-security.js';

/** The longest `next` followed; a longer one goes to `/`. */
const NEXT_MAX_LENGTH = 2000;

/** A stand-in origin to resolve `next` against: whatever does not stay on it is not a path of the portal. */
const NEXT_BASE = 'http://portal.invalid';

/**
 * Where a signed-out visitor may be sent back to after signing in: a path of
 * the portal itself, or `/` (OWASP ASVS 5.0 3.7.2: no redirect off the site).
 * The path is checked after the WHATWG URL parser has normalised it, as a
 * browser would (ASVS 5.0 1.1.1): `/.//host`, `/a/..//host` and `/%2e//host`
 * only become `//host` (another host) once dot segments are resolved. A
 * backslash (a slash to browsers), a control character (dropped by them)
 * and a path holding `//` or a backslash once percent-decoded are refused
 * too, so that no later decoding can turn the answer into another host.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > NEXT_MAX_LENGTH || !next.startsWith('/') || next.startsWith('//')) return '/';
  if (next.includes('\\') || hasControlCharacter(next) || !URL.canParse(next, NEXT_BASE)) return '/';
  const url = new URL(next, NEXT_BASE);
  const decoded = decodedPath(url.pathname);
  if (url.origin !== NEXT_BASE || decoded === undefined || decoded.includes('//') || decoded.includes('\\') || hasControlCharacter(decoded)) return '/';
  return `${url.pathname}${url.search}`;
}

/** The path with its percent-escapes decoded, or undefined when they are malformed. */
function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/** What a session may reach while PORTAL_REQUIRE_TWO_STEP waits for its user to turn two-step sign-in on. */
const TWO_STEP_SET_UP_PATHS = new Set(['/settings', '/settings/two-step/set-up', '/settings/two-step/confirm', '/sign-out']);
const TWO_STEP_FIRST = 'This portal requires two-step sign-in: set it up in Settings first.';

/** Starting, reading and ending the session cookie; one per portal host. */
/** A user who is a member of no account any more signs in to nothing (docs/portal.md, "Team and roles"). */
const NO_ACCOUNT = 'You are not a member of any store any more. Ask an owner to invite you again.';

export function createSessionCookies({ sessions, cookies }: { sessions: SessionsService; cookies: CookieNames }) {
  const options = {
    path: '/',
    httpOnly: true,
    // Lax: a link from elsewhere (an email) arrives signed in, but no other site can post a form with the cookie.
    sameSite: 'lax' as const,
    secure: cookies.secure,
  };

  return {
    /**
     * Signs the user in on this reply: any session the browser had ends, a
     * new id is issued (no fixation), and the CSRF secret is replaced so a
     * token learnt before sign-in is worthless after it. The session works
     * in the user's own account, or the first they joined; a user who
     * belongs to none gets the 403 page. Returns the account the session
     * works in (whose audit trail records the sign-in).
     */
    async start(request: FastifyRequest, reply: FastifyReply, userId: number): Promise<number> {
      await this.end(request, reply);
      const started = await sessions.start(userId, { userAgent: request.headers['user-agent'], address: request.ip });
      if (started === undefined) throw new PortalRefusal(403, NO_ACCOUNT);
      reply.setCookie(cookies.session, started.token, { ...options, maxAge: Math.floor(sessions.timeouts.absoluteMs / 1000) });
      reply.clearCookie(cookies.csrf, { path: '/' });
      return started.accountId;
    },

    /** The request's signed-in user, from the database (so a sign-out or a disabled user elsewhere counts at once). */
    async read(request: FastifyRequest): Promise<SignedIn | undefined> {
      const token = request.cookies[cookies.session];
      return token === undefined || token === '' ? undefined : sessions.resolve(token);
    },

    /** Ends the browser's session on the server and clears its cookie. */
    async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const current = await this.read(request);
      if (current !== undefined) await sessions.end(current.sessionIdHash);
      if (request.cookies[cookies.session] !== undefined) reply.clearCookie(cookies.session, options);
    },
  };
}

export type SessionCookies = ReturnType<typeof createSessionCookies>;

/**
 * The session guard: every route registered in `scope` after this call
 * needs a signed-in user. Without one, a GET is redirected to
 * `/sign-in?next=<path>` and anything else to `/sign-in`; with one,
 * `request.signedIn` holds it (with the accounts they belong to, from
 * `memberships`, for the header's switcher), the answer is never cached,
 * and the route's role is checked (portal-roles.ts): a role below it gets
 * the 403 page.
 */
export function requireSignedIn(
  scope: FastifyInstance,
  sessionCookies: SessionCookies,
  {
    memberships,
    audit,
    mustSetUpTwoStep,
  }: {
    memberships: (userId: number) => Promise<Membership[]>;
    audit: AuditRecorder;
    /** PORTAL_REQUIRE_TWO_STEP: whether the user must still turn two-step sign-in on (absent: nobody must). */
    mustSetUpTwoStep?: (userId: number) => Promise<boolean>;
  },
): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const signedIn = await sessionCookies.read(request);
    if (signedIn === undefined) {
      const next = request.method === 'GET' && request.url !== '/' ? `?next=${encodeURIComponent(safeNext(request.url))}` : '';
      return reply.redirect(`/sign-in${next}`, 303);
    }
    // Until a required two-step sign-in is on, the session reaches only what sets it up (and Sign out).
    if (mustSetUpTwoStep !== undefined && !TWO_STEP_SET_UP_PATHS.has(request.url.split('?')[0] ?? '') && (await mustSetUpTwoStep(signedIn.user.id))) {
      if (request.method === 'GET') return reply.redirect('/settings?two-step=required#two-step-heading', 303);
      throw new PortalRefusal(403, TWO_STEP_FIRST);
    }
    request.signedIn = signedIn;
    request.memberships = await memberships(signedIn.user.id);
    await checkRole(request, signedIn, audit);
    return undefined;
  });
}

/** The signed-in user of a request that passed the guard. */
export function signedInUser(request: FastifyRequest): SignedIn {
  const signedIn = request.signedIn;
  if (signedIn === undefined) throw new Error('signedInUser() called on a route outside requireSignedIn()');
  return signedIn;
}
