import type { FastifyReply } from 'fastify';
import { PENDING_SIGN_IN_MS } from '../../users/two-step/two-step-service.js';
import type { PortalContext } from './portal-context.js';
import type { CookieNames } from './portal-security.js';

/** The cookie a sign-in waiting for its code is held by: HttpOnly, SameSite=Strict, `__Host-` over https, for 5 minutes. */
export function pendingCookie(cookies: CookieNames) {
  return { name: `${cookies.secure ? '__Host-' : ''}so_two_step`, options: { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: cookies.secure } };
}

/**
 * The password step's answer for a user who signs in in two steps: no
 * session yet; a pending sign-in held by a cookie, and the code page.
 */
export async function askForSecondStep(context: PortalContext, reply: FastifyReply, userId: number, next: string): Promise<FastifyReply> {
  const token = await context.services.twoStep.startPendingSignIn(userId);
  const cookie = pendingCookie(context.cookies);
  reply.setCookie(cookie.name, token, { ...cookie.options, maxAge: PENDING_SIGN_IN_MS / 1000 });
  return reply.redirect(`/sign-in/two-step${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`, 303);
}
