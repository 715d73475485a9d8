import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionsService, SignedIn } from '../../users/sessions-service.js';
import type { CookieNames } from './portal-security.js';

/** Where a signed-out visitor may be sent back to after signing in: a path of this site only (no `//host`, no `/\host`, no scheme). */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.length > 2000) return '/';
  const base = 'http://portal.invalid';
  if (!URL.canParse(next, base)) return '/';
  const url = new URL(next, base);
  return url.origin === base ? `${url.pathname}${url.search}` : '/';
}

/** Starting, reading and ending the session cookie; one per portal host. */
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
     * token learnt before sign-in is worthless after it.
     */
    async start(request: FastifyRequest, reply: FastifyReply, userId: number): Promise<void> {
      await this.end(request, reply);
      const token = await sessions.start(userId);
      reply.setCookie(cookies.session, token, { ...options, maxAge: Math.floor(sessions.timeouts.absoluteMs / 1000) });
      reply.clearCookie(cookies.csrf, { path: '/' });
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
 * `request.signedIn` holds it and the answer is never cached.
 */
export function requireSignedIn(scope: FastifyInstance, sessionCookies: SessionCookies): void {
  scope.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const signedIn = await sessionCookies.read(request);
    if (signedIn === undefined) {
      const next = request.method === 'GET' && request.url !== '/' ? `?next=${encodeURIComponent(safeNext(request.url))}` : '';
      return reply.redirect(`/sign-in${next}`, 303);
    }
    request.signedIn = signedIn;
    return undefined;
  });
}

/** The signed-in user of a request that passed the guard. */
export function signedInUser(request: FastifyRequest): SignedIn {
  const signedIn = request.signedIn;
  if (signedIn === undefined) throw new Error('signedInUser() called on a route outside requireSignedIn()');
  return signedIn;
}
