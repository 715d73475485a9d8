import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../../config/config.js';
import { NotFoundError } from '../../../errors/errors.js';
import type { MailKind, MailRecord } from '../../../mail/mail-repository.js';
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

/** The mail kinds a sign-up sends, the only ones its cookie opens. */
const SIGN_UP_MAIL_KINDS: ReadonlySet<MailKind> = new Set(['sign-up-confirmation', 'sign-up-account-exists']);

/** How long the cookie keeps the last sign-up's mail open: as long as the link in it works. */
const SIGN_UP_MAIL_COOKIE_MAX_AGE_S = 24 * 3600;

/** The cookie that names the last sign-up's mail (`__Host-` over https, as the portal's other cookies: portal-security.ts). */
function signUpMailCookie(origin: string): { name: string; secure: boolean } {
  const secure = origin.startsWith('https:');
  return { name: `${secure ? '__Host-' : ''}so_dev_mail`, secure };
}

/**
 * Sets the cookie through which `/dev/sign-up-mail` shows the mail a sign-up
 * just queued to a visitor who is not signed in (development only; the
 * caller sets it after every sign-up alike, whether the address has a user
 * or not, so the answer does not differ). The id is random and names one
 * mail, a sign-up's, which is all the cookie opens.
 */
export function rememberSignUpMail(reply: FastifyReply, origin: string, mailId: string): void {
  const cookie = signUpMailCookie(origin);
  reply.setCookie(cookie.name, mailId, { path: '/', httpOnly: true, sameSite: 'strict', secure: cookie.secure, maxAge: SIGN_UP_MAIL_COOKIE_MAX_AGE_S });
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

/**
 * `/dev/sign-up-mail` (public, development only): the mail of this
 * browser's last sign-up (rememberSignUpMail), its links followable, for a
 * visitor who cannot sign in yet: the link that finishes the sign-up, or the
 * mail an address that already has an account gets. Any other mail, or none,
 * is the 404 page.
 */
export function registerDevSignUpMailPage(scope: FastifyInstance, { render, services, origin }: PortalContext): void {
  scope.get('/dev/sign-up-mail', async (request, reply) => {
    const id = request.cookies[signUpMailCookie(origin()).name];
    const found = id === undefined || id === '' ? undefined : await services.mail.show(id);
    if (found === undefined || !SIGN_UP_MAIL_KINDS.has(found.mail.kind)) throw noSuchMail();
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'dev-mail', { title: found.mail.subject, signUp: true, mail: { ...mailRow(found.mail), recipient: found.mail.recipient }, text: linked(found.body.text) });
  });
}
