/**
 * An absolute link into the portal, for a mail (or an operator) to hand
 * over: `path` and its query on the portal's public origin. The origin is
 * PORTAL_PUBLIC_URL when set, else the one the portal derives from HOST and
 * the port it listens on (hosts/portal/portal-origin.ts): a portal page
 * passes its context's `origin()`, the CLI `portalOrigin(config.portal, config.host)`.
 */
export function portalLink(origin: string, path: `/${string}`, query: Readonly<Record<string, string>> = {}): string {
  const url = new URL(path, `${origin}/`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.href;
}
