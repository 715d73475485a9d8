import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../../config/config.js';
import { NotFoundError } from '../../../errors/errors.js';
import type { MailRecord } from '../../../mail/mail-repository.js';
import { isLoopbackHost } from '../../../shared/loopback.js';
import type { PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';

/** The newest mail the mailbox lists. */
const PAGE_SIZE = 50;

const MailParams = Type.Object({ mailId: Type.String({ maxLength: 100 }) });

/**
 * A mail's HTML part is shown as a document of its own, sandboxed: no
 * script, no style, no request of any kind (a link still opens when followed).
 */
const HTML_PART_POLICY = "sandbox allow-popups allow-top-navigation-by-user-activation; default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Whether the development mailbox exists (docs/mail.md): only while
 * SMTP_URL is unset, so mail stays in the local outbox, and the portal
 * listens on a loopback address (HOST), a developer's own machine.
 * Otherwise its pages are not registered and answer 404.
 */
export function devMailboxAvailable(config: Pick<Config, 'host' | 'mail'>): boolean {
  return config.mail.smtp === null && isLoopbackHost(config.host);
}

/** Text split into plain runs and the http(s) links in it, for the page to make the links followable (every run is escaped by the template). */
function linked(text: string): { text: string; href?: string }[] {
  return text.split(/(https?:\/\/[^\s<>"]+)/).filter((run) => run !== '').map((run) => (/^https?:\/\//.test(run) ? { text: run, href: run } : { text: run }));
}

/** Another user's mail, or none: the same 404 page as an unknown address. */
const noSuchMail = () => new NotFoundError('route_not_found', 'There is no such mail in your mailbox.');

function mailRow(mail: MailRecord) {
  return {
    id: mail.id,
    subject: mail.subject,
    kind: mail.kind,
    status: mail.status,
    created: formatInstant(mail.createdAt),
    when: mail.createdAt,
  };
}

/**
 * `/dev/mailbox` (signed in, development only): the mail the local outbox
 * holds for the signed-in user's own address, newest first, and each one
 * with its text part (links followable) and its HTML part. Only the user's
 * own mail: even a loopback portal may sit behind a proxy that others reach.
 */
export function registerDevMailboxPages(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/dev/mailbox', async (request, reply) => {
    const { user } = signedInUser(request);
    const mail = await services.mail.list({ recipient: user.email, limit: PAGE_SIZE });
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'dev-mailbox', { title: 'Development mailbox', email: user.email, mail: mail.map(mailRow) });
  });

  app.get('/dev/mailbox/:mailId', { schema: { params: MailParams } }, async (request, reply) => {
    const found = await services.mail.show(request.params.mailId, { recipient: signedInUser(request).user.email });
    if (found === undefined) throw noSuchMail();
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'dev-mail', { title: found.mail.subject, mail: { ...mailRow(found.mail), recipient: found.mail.recipient }, text: linked(found.body.text) });
  });

  app.get('/dev/mailbox/:mailId/html', { schema: { params: MailParams } }, async (request, reply) => {
    const found = await services.mail.show(request.params.mailId, { recipient: signedInUser(request).user.email });
    if (found === undefined) throw noSuchMail();
    return reply.headers({ 'content-security-policy': HTML_PART_POLICY, 'cache-control': 'no-store' }).type('text/html; charset=utf-8').send(found.body.html);
  });
}
