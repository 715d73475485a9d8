import { isIP } from 'node:net';
import { normalizeDateTime } from '../shared/date-time.js';

/**
 * The value formats the configuration schema refines its strings with. Each
 * is a plain function of the text so that the schema can check a value and
 * the loader can convert the same text without a second set of rules.
 */

const HOST_NAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An IPv4/IPv6 address, or an RFC 1123 host name that is not a malformed dotted quad. */
export function isValidHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  return HOST_NAME.test(host) && !/^[0-9.]+$/.test(host);
}

/** An absolute http(s) URL without query, fragment or credentials, returned without a trailing slash (paths are appended to it). */
export function parseBaseUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return undefined;
  }
  return url.href.replace(/\/+$/, '');
}

/** An origin: an absolute http(s) URL with no path (a `/` alone is dropped), query, fragment or credentials. */
export function parsePortalUrl(text: string): string | undefined {
  const url = parseBaseUrl(text);
  return url !== undefined && new URL(url).pathname === '/' ? new URL(url).origin : undefined;
}

/** A base URL (see parseBaseUrl) whose path ends in the version prefix /v1 (spec section 1). */
export function parseVersionedBaseUrl(text: string): string | undefined {
  const url = parseBaseUrl(text);
  return url?.endsWith('/v1') === true ? url : undefined;
}

/** Any absolute http:// or https:// URL; query and credentials allowed (a webhook may carry a token). */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** A calendar date (midnight UTC) or an RFC 3339 date-time with an explicit zone. */
export function parseInstant(text: string): Date | undefined {
  const normalized = normalizeDateTime(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return normalized === undefined ? undefined : new Date(normalized);
}

/** A proxy that X-Forwarded-For is believed from: an address, a CIDR range, or one of proxy-addr's named ranges. */
export function isTrustedProxyEntry(entry: string): boolean {
  return /^(?:loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(?:\/[0-9]{1,3})?)$/.test(entry);
}

/** A CIDR range (`10.0.0.0/8`, `fd00::/8`) or one address, as WEBHOOK_ALLOWED_NETWORKS lists them. */
export function isWebhookNetwork(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  if (extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const DELAY_UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `['5s', '5m', '2h']` in milliseconds; undefined when empty or an entry is not a whole number and a unit (ms, s, m, h, d) of at most 30 days. */
export function parseRetrySchedule(entries: readonly string[]): number[] | undefined {
  if (entries.length === 0 || entries.length > 100) return undefined;
  const delays: number[] = [];
  for (const entry of entries) {
    const match = /^([0-9]{1,9})(ms|s|m|h|d)$/.exec(entry);
    if (match === null) return undefined;
    const ms = Number(match[1]) * DELAY_UNIT_MS[match[2] as keyof typeof DELAY_UNIT_MS];
    if (ms > 30 * DELAY_UNIT_MS.d) return undefined;
    delays.push(ms);
  }
  return delays;
}

/** 32 characters of a random string carry at least 128 bits even as hex. */
export const CURSOR_SECRET_MIN_LENGTH = 32;

/** The SQLite file a sqlite: URL names (relative to the working directory), or a problem. */
type DatabaseUrl = { kind: 'sqlite'; file: string } | { kind: 'postgres' } | { kind: 'invalid'; problem: string };

/**
 * Classifies DATABASE_URL. A problem never quotes a postgres URL: it may
 * hold a password.
 */
export function parseDatabaseUrl(url: string): DatabaseUrl {
  const invalid = (problem: string): DatabaseUrl => ({ kind: 'invalid', problem });
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    // sqlite:///abs/path is a URL with an empty authority; sqlite://x would silently mean /x.
    if (rest.startsWith('//') && !rest.startsWith('///')) {
      return invalid('DATABASE_URL must be sqlite:<path> or sqlite:///<absolute path> (sqlite://<name> is ambiguous)');
    }
    const file = rest.replace(/^\/\/(?=\/)/, '');
    if (file === '' || file.includes('\0')) return invalid('DATABASE_URL must name a file after "sqlite:", e.g. sqlite:./data/store.db');
    if (file === ':memory:') return invalid('DATABASE_URL sqlite::memory: is not supported: the CLI and the server must share one database file');
    return { kind: 'sqlite', file };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  if (scheme !== undefined && /^postgres(ql)?$/i.test(scheme)) {
    if (!URL.canParse(url)) {
      return invalid('DATABASE_URL is not a valid postgres:// URL (the value is not shown because it may contain a password)');
    }
    const parsed = new URL(url);
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
      return invalid('DATABASE_URL must name a host, e.g. postgres://user:password@db.example:5432/store (the value is not shown)');
    }
    return { kind: 'postgres' };
  }
  return invalid(
    scheme === undefined
      ? 'DATABASE_URL must start with "sqlite:" or "postgres://" (e.g. sqlite:./data/store.db)'
      : `DATABASE_URL scheme "${scheme}:" is not supported; use sqlite:<path> or postgres://user:password@host:port/database`,
  );
}

/** Visible ASCII: a secret pasted with a space or a newline in it is refused rather than silently trimmed inside. */
export const PRINTABLE = '^[\\x21-\\x7e]+$';

/** The SMTP server of SMTP_URL, in parts: the transport is built from these, never from the URL text (which holds the password). */
export interface SmtpServer {
  /** smtps://: TLS from the first byte (implicit TLS); smtp://: STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly host: string;
  readonly port: number;
  readonly user?: string;
  /** Never logged or echoed. */
  readonly password?: string;
}

/**
 * `smtp://[user[:password]@]host[:port]` or `smtps://…` (percent-encoded
 * credentials), with no path, query or fragment; the port defaults to 587
 * (smtp) or 465 (smtps). Undefined for anything else; a problem never
 * quotes the URL.
 */
export function parseSmtpUrl(text: string): SmtpServer | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return undefined;
  if (url.hostname === '' || (url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') return undefined;
  if (url.password !== '' && url.username === '') return undefined;
  const secure = url.protocol === 'smtps:';
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    return undefined;
  }
  return {
    secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    ...(user === '' ? {} : { user }),
    ...(password === '' ? {} : { password }),
  };
}

/** `no-reply@store.example.com` or `Store Orders <no-reply@store.example.com>`: one mailbox, no control characters (a header injection). */
export function isMailbox(text: string): boolean {
  return /^(?:[^<>"\p{Cc}]*<[^\s<>@"]+@[^\s<>@"]+>|[^\s<>@"]+@[^\s<>@"]+)$/u.test(text.trim());
}
