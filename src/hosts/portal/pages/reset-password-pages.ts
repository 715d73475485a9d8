import { recordPortalAction } from '../portal-audit.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { refuseWhileThrottled } from './sign-in-pages.js';

const ResetQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });
const ResetForm = Type.Object({ _csrf: csrfField, token: formField(), password: formField() });

/** `/reset-password?token=…` (public): the page an operator's `users reset-password` link opens. */
export function registerResetPasswordPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, throttle } = context;

  app.get('/reset-password', { schema: { querystring: ResetQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const token = request.query.token ?? '';
    const valid = await services.users.isResetValid(token);
    return render(request, reply, 'reset-password', { title: 'Choose a new password', token: valid ? token : '', valid }, valid ? 200 : 400);
  });

  app.post('/reset-password', { schema: { body: ResetForm } }, async (request, reply) => {
    refuseWhileThrottled(context, request);
    throttle.count({ address: request.ip });
    const result = await services.users.resetPassword({ token: request.body.token, password: request.body.password });
    if (!result.ok) {
      reply.header('cache-control', 'no-store');
      const valid = result.field === 'password';
      return render(request, reply, 'reset-password', { title: 'Choose a new password', token: valid ? request.body.token : '', valid, error: result }, 400);
    }
    // The user is not signed in here: the entry is theirs, from this address, marked as a reset.
    await recordPortalAction(services.audit, request, result.user, 'authn_password_change', { details: { reason: 'reset' } });
    return reply.redirect('/sign-in?reset=1', 303);
  });
}
