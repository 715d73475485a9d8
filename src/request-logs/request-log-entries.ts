import { looksLikeApiKey, redactApiKeys } from '../api-keys/api-key-format.js';
import type { ApiVersion, NewRequestLog } from './request-logs-repository.js';
import { textMemo } from '../shared/text-memo.js';

/**
 * A request as the HTTP layer captures it on its way out: plain fields it
 * already holds, nothing computed. Everything else (the time as text, the
 * redacted path, the error code) is worked out by toNewRequestLog when the
 * batch is written, off the request path.
 */
export interface CapturedRequest {
  /** Epoch milliseconds when the request arrived. */
  at: number;
  method: string;
  /** The request target as sent (path and query). */
  url: string;
  status: number;
  durationMs: number;
  requestId: string;
  accountId: number;
  keyId: number | undefined;
  clientAddress: string | undefined;
  userAgent: string | undefined;
  /** The body of a non-2xx answer (an Error record), as sent. */
  errorBody: string | undefined;
}

/** Longest stored path (with its query), user agent and error body: what a client sends is bounded here, not only by the HTTP limits. */
const PATH_MAX = 2048;
const USER_AGENT_MAX = 512;
const ERROR_BODY_MAX = 4096;
const METHOD_MAX = 16;

/**
 * Query parameter names whose values are never stored: anything that could
 * carry a credential. Names are matched case-insensitively, anywhere in the
 * name (api_key, access_token, client_secret, X-Signature, …).
 */
const SECRET_NAME = /key|token|secret|passw|pwd|auth|session|cookie|signature|sig$|credential|code|otp|nonce/i;
const REDACTED = '[redacted]';

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * The request target fit to store: the path as sent, and in the query the
 * value of every parameter whose name suggests a secret replaced by
 * [redacted]; anything shaped like an API key is scrubbed wherever it is,
 * percent-encoded or not. Bounded to PATH_MAX characters.
 */
export function storablePath(url: string): string {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  let stored = scrub(path);
  if (queryStart !== -1) {
    const pairs = url
      .slice(queryStart + 1)
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        const name = equals === -1 ? pair : pair.slice(0, equals);
        if (equals === -1) return scrub(name);
        return SECRET_NAME.test(safeDecode(name)) ? `${scrub(name)}=${REDACTED}` : `${scrub(name)}=${scrub(pair.slice(equals + 1))}`;
      });
    stored += `?${pairs.join('&')}`;
  }
  return stored.length > PATH_MAX ? stored.slice(0, PATH_MAX) : stored;
}

/** A part of the URL with anything shaped like an API key replaced, judged on its decoded form too. */
function scrub(part: string): string {
  const decoded = safeDecode(part);
  return looksLikeApiKey(decoded) ? redactApiKeys(decoded) : part;
}

/** The API version a path names (/v1/…, /v2/…), if any. */
function apiVersionOf(url: string): ApiVersion | undefined {
  if (url.startsWith('/v1/') || url === '/v1') return 'v1';
  if (url.startsWith('/v2/') || url === '/v2') return 'v2';
  return undefined;
}

/** The code of an Error record's JSON, if it is one. */
function errorCodeOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { code } = parsed as { code?: unknown };
    return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function storableUserAgent(userAgent: string): string {
  return redactApiKeys(userAgent.slice(0, USER_AGENT_MAX));
}

/**
 * Turns captured requests into their stored form (toNewRequestLog), the
 * stored form of each request target and user agent remembered (at most
 * 1,024 of each: shared/text-memo.ts).
 */
export function createStoredForm(): (captured: CapturedRequest) => NewRequestLog {
  const forms: StoredForms = { path: textMemo(storablePath), userAgent: textMemo(storableUserAgent), time: lastMillisecond() };
  return (captured) => toNewRequestLog(captured, forms);
}

interface StoredForms {
  path(url: string): string;
  userAgent(userAgent: string): string;
  time(at: number): string;
}

/** An arrival time (epoch milliseconds, fractional) as stored: ISO 8601 UTC to the millisecond. */
function storableTime(at: number): string {
  return new Date(at).toISOString();
}

/**
 * storableTime, the last millisecond's text remembered: a busy host stamps
 * a dozen requests in each millisecond, and formatting a date was most of
 * the stored form's cost (BENCHMARKS.md, tenth session). Date truncates a
 * fractional time the same way.
 */
function lastMillisecond(): (at: number) => string {
  let millisecond = Number.NaN;
  let text = '';
  return (at) => {
    const whole = Math.trunc(at);
    if (whole !== millisecond) {
      text = storableTime(whole);
      millisecond = whole;
    }
    return text;
  };
}

/** A captured request as it is stored; `forms` are storablePath, storableUserAgent and storableTime, or memos of them. */
export function toNewRequestLog(captured: CapturedRequest, forms: StoredForms = { path: storablePath, userAgent: storableUserAgent, time: storableTime }): NewRequestLog {
  const entry: NewRequestLog = {
    accountId: captured.accountId,
    at: forms.time(captured.at),
    method: captured.method.slice(0, METHOD_MAX),
    path: forms.path(captured.url),
    status: captured.status,
    durationMs: Math.round(captured.durationMs * 1000) / 1000,
    requestId: captured.requestId,
  };
  const version = apiVersionOf(captured.url);
  if (version !== undefined) entry.apiVersion = version;
  if (captured.keyId !== undefined) entry.keyId = captured.keyId;
  if (captured.clientAddress !== undefined) entry.clientAddress = captured.clientAddress;
  if (captured.userAgent !== undefined) entry.userAgent = forms.userAgent(captured.userAgent);
  if (captured.errorBody !== undefined && (captured.status < 200 || captured.status > 299)) {
    // An Error record never holds a key (messages never quote one); scrubbed all the same.
    const body = redactApiKeys(captured.errorBody.slice(0, ERROR_BODY_MAX));
    entry.errorBody = body;
    const code = errorCodeOf(body);
    if (code !== undefined) entry.errorCode = code;
  }
  return entry;
}
