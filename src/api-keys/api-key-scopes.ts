/**
 * What a key may do. Each route declares the one scope it needs (route
 * config `scope`); authentication checks it in one place. A key created
 * without --scopes gets all of them, and so holds the scopes added later
 * too (ALL_SCOPES_MARKER). New scopes are appended.
 */
export const API_KEY_SCOPES = ['orders:read', 'orders:write', 'pets:read', 'messages:write', 'audit:read', 'events:read', 'webhooks:manage', 'logs:read'] as const;

/**
 * Stored first in the scope list of a key that holds every scope: such a key
 * holds every scope of the release reading it, those added after it was
 * issued included. The names follow, so that a release that does not know
 * the marker still reads the key's scopes (migration 0006).
 */
const ALL_SCOPES_MARKER = '*';

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

function isApiKeyScope(text: string): text is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(text);
}

/** Parses "orders:read,pets:read" (commas and/or spaces); undefined names the first unknown scope. */
export function parseScopes(text: string): { ok: true; scopes: ApiKeyScope[] } | { ok: false; unknown: string } {
  const names = text.split(/[\s,]+/).filter((name) => name !== '');
  const scopes: ApiKeyScope[] = [];
  for (const name of names) {
    if (!isApiKeyScope(name)) return { ok: false, unknown: name };
    if (!scopes.includes(name)) scopes.push(name);
  }
  return { ok: true, scopes };
}

/**
 * Scopes in their canonical order, the way they are stored ("orders:read
 * orders:write"); a key holding every scope is stored with the marker first.
 */
export function formatScopes(scopes: readonly ApiKeyScope[]): string {
  const held = API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
  return [...(held.length === API_KEY_SCOPES.length ? [ALL_SCOPES_MARKER] : []), ...held].join(' ');
}

/** Reads a stored scope list, ignoring names this version does not know (fail closed); the marker means every scope. */
export function readStoredScopes(text: string): ApiKeyScope[] {
  const names = text.split(' ');
  return names[0] === ALL_SCOPES_MARKER ? [...API_KEY_SCOPES] : names.filter(isApiKeyScope);
}
