import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuditDetails } from '../../../audit/audit-repository.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField } from '../portal-context.js';
import { recordUserEvent } from '../portal-audit.js';
import { PortalRefusal } from '../portal-security.js';
import { signedInUser } from '../portal-session.js';
import { spendAttempt } from './sign-in-pages.js';

const VerifyQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });
const ResendForm = Type.Object({ _csrf: csrfField });

/** Audit details hold strings of at most 200 characters; an address may have 254. */
const addressDetail = (address: string) => address.slice(0, 200);

/**
 * The 403 page of an action PORTAL_REQUIRE_VERIFIED_EMAIL holds back for an
 * unverified user (the banner above it has **Resend**).
 */
export function verifyEmailFirst(): PortalRefusal {
  return new PortalRefusal(403, 'Verify your email address first: follow the link we mailed you, or send a new one with Resend above.');
}

/**
 * `/verify-email?token=…` (public, so it works in any browser): follows a
 * mailed verification link, once. A link of a change of email makes the
 * new address the user's. An expired, used or unknown link says so.
 */
export function registerVerifyEmailPage(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/verify-email', { schema: { querystring: VerifyQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const used = await services.emailVerification.verify(request.query.token ?? '');
    const title = 'Email address';
    if (used === undefined || used === 'email_taken') return render(request, reply, 'verify-email', { title, outcome: used ?? 'invalid' }, 400);
    const user = { id: used.userId };
    const target = { kind: 'user', id: String(used.userId) } as const;
    if (used.previousEmail === undefined) {
      await recordUserEvent(services.team, request, user, 'user_email_verified', { target });
    } else {
      const details: AuditDetails = { from: addressDetail(used.previousEmail), to: addressDetail(used.email) };
      await recordUserEvent(services.team, request, user, 'user_email_changed', { target, details });
    }
    return render(request, reply, 'verify-email', { title, outcome: used.kind === 'change-email' ? 'changed' : 'verified', email: used.email });
  });
}

/** `POST /verify-email/resend` (signed in): the banner's **Resend**, counted against the sign-in throttle of the address and the email. */
export function registerResendVerificationPage(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, origin } = context;

  app.post('/verify-email/resend', { schema: { body: ResendForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    await spendAttempt(context, request, { email: user.email });
    const outcome = await services.emailVerification.resend(user, origin());
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'verify-email', { title: 'Email address', outcome: outcome === 'sent' ? 'sent' : 'verified', email: user.email });
  });
}
