import { looksLikeApiKey, redactApiKeys } from '../api-keys/api-key-format.js';
import type { CapturedColumns } from './request-log-buffer.js';
import type { ApiVersion, StoredRequests } from './request-logs-repository.js';
import { lastOf, textMemo } from '../shared/text-memo.js';

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
 * Turns captured requests (a peek of the capture buffer) into their stored
 * form, column by column: the time to the millisecond, the duration to the
 * microsecond, the method bounded, the request target redacted
 * (storablePath) with its API version, the user agent bounded and scrubbed,
 * and for a non-2xx answer its body and the Error record's code. The stored
 * form of each request target and user agent is remembered (at most 1,024 of
 * each: shared/text-memo.ts), and the last one's looked up first: the buffer
 * keeps one copy of each text, and a busy client's requests repeat the one
 * before.
 */
export function createStoredForm(): (captured: CapturedColumns) => StoredRequests {
  const paths = lastOf(textMemo(storablePath));
  const agents = lastOf(textMemo(storableUserAgent));
  return (captured) => {
    const { length } = captured;
    const at = new Float64Array(length);
    const durationMs = new Float64Array(length);
    const method: string[] = [];
    const path: string[] = [];
    const apiVersion: (ApiVersion | undefined)[] = [];
    const userAgent: (string | undefined)[] = [];
    const errorCode: (string | undefined)[] = [];
    const errorBody: (string | undefined)[] = [];
    // The last request target's API version, looked up again only when the target changes (the buffer keeps one copy of each).
    let lastUrl: string | undefined;
    let lastVersion: ApiVersion | undefined;
    for (let n = 0; n < length; n++) {
      at[n] = Math.trunc(captured.at[n] as number);
      durationMs[n] = Math.round((captured.durationMs[n] as number) * 1000) / 1000;
      const verb = captured.method[n] as string;
      method.push(verb.length > METHOD_MAX ? verb.slice(0, METHOD_MAX) : verb);
      const url = captured.url[n] as string;
      path.push(paths(url));
      if (url !== lastUrl) {
        lastUrl = url;
        lastVersion = apiVersionOf(url);
      }
      apiVersion.push(lastVersion);
      const agent = captured.userAgent[n];
      userAgent.push(agent === undefined ? undefined : agents(agent));
      const body = captured.errorBody[n];
      const status = captured.status[n] as number;
      if (body === undefined || (status >= 200 && status <= 299)) {
        errorBody.push(undefined);
        errorCode.push(undefined);
      } else {
        // An Error record never holds a key (messages never quote one); scrubbed all the same.
        const stored = redactApiKeys(body.slice(0, ERROR_BODY_MAX));
        errorBody.push(stored);
        errorCode.push(errorCodeOf(stored));
      }
    }
    const { accountId, status, keyId, clientAddress, requestId, uuids } = captured;
    return { length, accountId, at, method, path, status, durationMs, keyId, clientAddress, userAgent, apiVersion, errorCode, errorBody, requestId, uuids };
  };
}
