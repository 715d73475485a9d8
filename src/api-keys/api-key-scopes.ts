/**
 * What a key may do. Each route declares the one scope it needs (route
 * config `scope`); authentication checks it in one place. A key created
 * without --scopes gets all of them.
 */
export const API_KEY_SCOPES = ['orders:read', 'orders:write', 'pets:read', 'messages:write', 'events:read', 'webhooks:manage'] as const;

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

/** Scopes in their canonical order, the way they are stored ("orders:read orders:write"). */
export function formatScopes(scopes: readonly ApiKeyScope[]): string {
  return API_KEY_SCOPES.filter((scope) => scopes.includes(scope)).join(' ');
}

/** Reads a stored scope list, ignoring names this version does not know (fail closed). */
export function readStoredScopes(text: string): ApiKeyScope[] {
  return text.split(' ').filter(isApiKeyScope);
}
