import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import csrfProtection from '@fastify/csrf-protection';

/**
 * The portal's documents load only their own files: no inline script or
 * style, no framing, forms post only here. `Referrer-Policy: same-origin`:
 * a portal URL never leaks to another site, and same-origin form posts keep
 * a real `Origin` (with `no-referrer` Chromium sends `Origin: null`).
 */
export const PORTAL_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** A refusal the portal answers with its own HTML page (403 for a forged form, 429 for throttling). */
export class PortalRefusal extends Error {
  constructor(
    readonly status: 403 | 429,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'PortalRefusal';
  }
}

export const FORGED_FORM = 'This form did not come from this site, or it has expired. Go back, reload the page and try again.';

export interface CookieNames {
  session: string;
  csrf: string;
  /** `Secure` (and the `__Host-` prefix) when the portal is reached over https. */
  secure: boolean;
}

/**
 * The cookie names: over https `__Host-so_session` and `__Host-so_csrf`
 * (the prefix makes the browser refuse them unless Secure, host-only and
 * Path=/, so a sibling subdomain cannot plant one); over http (a developer's
 * localhost) `so_session` and `so_csrf`.
 */
export function cookieNames(origin: string): CookieNames {
  const secure = origin.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}so_session`, csrf: `${prefix}so_csrf`, secure };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin a state-changing request came from: `Origin`, else the origin of `Referer`, else undefined. */
function sourceOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined) return origin;
  const referer = request.headers.referer;
  return referer !== undefined && URL.canParse(referer) ? new URL(referer).origin : undefined;
}

/**
 * Every request but GET/HEAD/OPTIONS must come from a page of the portal
 * itself (OWASP CSRF cheat sheet: verify the source origin, and a token):
 * its `Origin` (or `Referer`) must be the portal's origin (`null`, sent by
 * privacy settings or sandboxed frames, is refused), and its form must carry
 * the CSRF token of this browser (`_csrf`, from @fastify/csrf-protection,
 * its secret in an HttpOnly, SameSite=Strict cookie). Runs before body
 * validation, so a forged form gets 403 whatever its fields.
 */
export async function installFormProtection(app: FastifyInstance, { origin, cookies }: { origin: () => string; cookies: CookieNames }): Promise<void> {
  await app.register(csrfProtection, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: cookies.csrf,
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'strict', secure: cookies.secure },
  });
  app.addHook('preValidation', (request, reply, done) => {
    // A request no route takes changes nothing: it gets its 404 or 405 page.
    if (SAFE_METHODS.has(request.method) || request.is404) {
      done();
      return;
    }
    if (sourceOrigin(request) !== origin()) {
      done(new PortalRefusal(403, FORGED_FORM));
      return;
    }
    app.csrfProtection(request, reply, done);
  });
}

/** The portal's headers, set first so that the hardening's JSON defaults (which only fill gaps) never replace them. */
export function installPortalHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply: FastifyReply, done) => {
    reply.headers(PORTAL_HEADERS);
    done();
  });
}
