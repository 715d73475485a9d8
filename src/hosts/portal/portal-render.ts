import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorPresenter } from '../../http/error-handler.js';
import { FORGED_FORM, PORTAL_HEADERS, PortalRefusal } from './portal-security.js';
import type { SignedIn } from '../../users/sessions-service.js';
import type { Membership } from '../../users/team/team-repository.js';
import { pagePermissions } from './portal-roles.js';

/** Templates and static files live beside migrations/, outside src/ and dist/, so both run from the same files. */
export const PORTAL_FILES = fileURLToPath(new URL('../../../portal/', import.meta.url));

/** What every page's template reads besides its own data. */
export interface PageData {
  /** The page's <title> and <h1>. */
  title: string;
  [name: string]: unknown;
}

/** The URLs of the portal's one script and one style sheet (content-hashed: assets/portal-assets.ts), which the layout links. */
export interface AssetLinks {
  script: string;
  style: string;
}

/** The signed-in pages' navigation, in the header's order. */
const NAVIGATION = [
  { href: '/', label: 'Account' },
  { href: '/keys', label: 'API keys' },
  { href: '/orders', label: 'Orders' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/logs', label: 'Logs' },
  { href: '/audit', label: 'Audit trail' },
  { href: '/team', label: 'Team' },
  { href: '/settings', label: 'Settings' },
] as const;

/** Last in the navigation while the development mailbox exists (pages/dev-mailbox-pages.ts). */
const DEV_MAILBOX_LINK = { href: '/dev/mailbox', label: 'Dev mailbox' } as const;

/**
 * The navigation as the page at `path` shows it: `aria-current="page"` on
 * the link to that very page, `"true"` on the section a deeper page belongs
 * to (`/webhooks/7` is within Webhooks), so that the current place is said
 * to screen readers and marked for the eye.
 */
function navigation(path: string, links: readonly { href: string; label: string }[]): { href: string; label: string; current?: 'page' | 'true' }[] {
  return links.map((link) => {
    if (path === link.href) return { ...link, current: 'page' };
    return link.href !== '/' && path.startsWith(`${link.href}/`) ? { ...link, current: 'true' } : link;
  });
}

/** Renders `view` (portal/views/<view>.eta) inside the layout and sends it. */
export type PageRenderer = (request: FastifyRequest, reply: FastifyReply, view: string, data: PageData, status?: number) => FastifyReply;

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the session guard on signed-in pages (portal-session.ts); undefined elsewhere. */
    signedIn: SignedIn | undefined;
    /** The accounts the signed-in user belongs to (the header's switcher), set with `signedIn`. */
    memberships: Membership[] | undefined;
  }
}

/**
 * The portal's renderer: Eta templates with auto-escaping on (`<%= %>`
 * escapes HTML; `<%~ %>`, which does not, is only for the output of
 * `include`). Every page gets `it.csrfToken` for its forms (the layout's
 * Sign out form uses it too), `it.signedIn` for the header and
 * `it.webhookNotices` for the failure notices above the page
 * (pages/webhook-notice-pages.ts), `it.can` for the buttons the member's
 * role may use (portal-roles.ts); the layout gets `it.assets` and
 * `it.nav` (the navigation with the current page marked; with
 * `devMailbox`, the development mailbox's link last).
 */
export function createPageRenderer({ cache, assets, devMailbox = false }: { cache: boolean; assets: AssetLinks; devMailbox?: boolean }): PageRenderer {
  const eta = new Eta({ views: `${PORTAL_FILES}views`, autoEscape: true, cache });
  const links = devMailbox ? [...NAVIGATION, DEV_MAILBOX_LINK] : NAVIGATION;
  return (request, reply, view, data, status = 200) => {
    // An error page can be rendered before the cookies were parsed (a refusal in the first hooks): it then has no forms to protect.
    const csrfToken = (request.cookies as FastifyRequest['cookies'] | null) === null ? '' : reply.generateCsrf();
    const nav = navigation(request.url.split('?', 1)[0] ?? '/', links);
    const html = eta.render(view, { ...data, csrfToken, signedIn: request.signedIn, can: pagePermissions(request.signedIn?.role), memberships: request.memberships ?? [], webhookNotices: request.webhookNotices, assets, nav });
    return reply.code(status).type('text/html; charset=utf-8').send(html);
  };
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'That request could not be understood',
  403: 'That action was refused',
  404: 'Page not found',
  405: 'That action is not available here',
  408: 'The request took too long',
  413: 'That form was too large',
  429: 'Too many attempts',
};

/** "in 3 minutes" for a wait of milliseconds, rounded up (a person reads minutes). */
export function inMinutes(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * Refusals and failures as a human page (never JSON, never a stack): the
 * status, a title and one sentence of what to do. A 5xx says only that it
 * was logged.
 */
export function htmlErrorPresenter(render: PageRenderer): ErrorPresenter {
  return (request, reply, { record, headers, error }) => {
    let status: number = record.status;
    let message = record.message;
    if (error instanceof PortalRefusal) {
      status = error.status;
      message = error.message;
      headers = { ...headers, ...error.headers };
    } else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('FST_CSRF_')) {
      status = 403;
      message = FORGED_FORM;
    } else if (status === 404) {
      message = 'There is nothing at this address. Check the link, or go to your account.';
    } else if (status === 429) {
      message = `Too many requests from your address. Try again ${inMinutes(Number(headers['retry-after'] ?? '60') * 1000)}.`;
    } else if (status >= 500) {
      message = 'Something went wrong on our side. It has been logged; please try again shortly.';
    }
    reply.headers({ ...PORTAL_HEADERS, ...headers, 'x-request-id': request.id, 'cache-control': 'no-store' });
    return render(request, reply, 'error', { title: TITLES[status] ?? 'Something went wrong', message, status, requestId: request.id }, status);
  };
}
