import { PAGE_LIMIT_MAX } from '../../api/page-bounds.js';
import { parseRetryAfter } from '../../delivery/delivery-error.js';
import type { EventType } from '../../events/event-types.js';
import { arrayMemberTexts } from '../../shared/json.js';
import { CommandFailed } from '../cli-errors.js';
import { oneLine } from '../cli-output.js';

/** One event of the feed: its id and type, and its Event JSON exactly as served (what a webhook endpoint receives). */
export interface FeedEvent {
  readonly id: string;
  readonly type: string;
  readonly payload: string;
}

export interface FeedPage {
  readonly events: readonly FeedEvent[];
  readonly nextCursor: string;
  /** Shorter than a full page: the feed is caught up. */
  readonly caughtUp: boolean;
}

/** The feed's filters, fixed for a whole run: a cursor is bound to the filters of its first page. */
export interface FeedFilter {
  readonly types: readonly EventType[] | undefined;
  /** ISO 8601: only events created at or after it. */
  readonly createdFrom: string;
}

/** The server could not be asked just now (no connection, no answer in time, 5xx, 429): worth asking again later. */
export class FeedUnavailable extends Error {
  constructor(
    message: string,
    /** It answered (5xx, 429), as opposed to no connection or no answer in time. */
    readonly answered: boolean,
    /** How long the server asked to be left alone (429's Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The server refused the request for good (401, 403, 404, another 4xx): its status and Error record. */
export class FeedRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** How long one request to the feed may take. */
const FEED_TIMEOUT_MS = 10_000;

/**
 * Reads an account's events feed (GET /v2/events, scope events:read) from a
 * running server with a store developer's API key, sent in the Authorization
 * header only (never in a URL, never printed). `base` is the server's address
 * without the version prefix, ending in a slash.
 */
export function createEventsFeedClient({ base, apiKey }: { base: URL; apiKey: string }) {
  const feedUrl = new URL('v2/events', base);
  const where = base.href.replace(/\/$/, '');

  async function get(query: URLSearchParams, signal: AbortSignal): Promise<{ body: string; date: string | null }> {
    const url = new URL(feedUrl);
    url.search = query.toString();
    // One timer, cleared when the request settles (as the outbound client does), aborted also by the caller's signal.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), FEED_TIMEOUT_MS);
    const interrupted = () => deadline.abort();
    signal.addEventListener('abort', interrupted, { once: true });
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' }, signal: deadline.signal });
      body = await response.text();
    } catch (error) {
      if (signal.aborted) throw error;
      if (deadline.signal.aborted) throw new FeedUnavailable(`the server at ${where} did not answer within ${FEED_TIMEOUT_MS / 1000} s`, false);
      const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
      throw new FeedUnavailable(`cannot reach the server at ${where}: ${oneLine(cause)}`, false);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', interrupted);
    }
    if (response.ok) return { body, date: response.headers.get('date') };
    const record = errorRecord(body);
    const said = record === undefined ? `HTTP ${response.status}` : `${record.message} (HTTP ${response.status}, ${record.code})`;
    if (response.status === 429) throw new FeedUnavailable(`the server is rate-limiting this key: ${said}`, true, parseRetryAfter(response.headers.get('retry-after') ?? undefined, Date.now()));
    if (response.status >= 500) throw new FeedUnavailable(`the server at ${where} answered ${said}`, true);
    throw new FeedRefused(response.status, record?.code, said);
  }

  return {
    /** The server's address, as messages name it. */
    where,

    /**
     * The server's clock (its Date header; this machine's when it sends none),
     * from a first request that also checks the key and its scope: what a run
     * starts from, whatever this machine's clock says.
     */
    async serverNow(signal: AbortSignal): Promise<Date> {
      const { date } = await get(new URLSearchParams({ limit: '1' }), signal);
      const time = Date.parse(date ?? '');
      return Number.isNaN(time) ? new Date() : new Date(time);
    },

    /** The page after `cursor` (the first page without one), as full as the server allows. */
    async page(filter: FeedFilter, cursor: string | undefined, signal: AbortSignal): Promise<FeedPage> {
      const query = new URLSearchParams({ limit: String(PAGE_LIMIT_MAX), createdFrom: filter.createdFrom });
      for (const type of filter.types ?? []) query.append('type', type);
      if (cursor !== undefined) query.set('cursor', cursor);
      const { body } = await get(query, signal);
      const page = parsePage(body);
      if (page === undefined) throw new CommandFailed(`the answer of ${where}/v2/events is not a page of events: is this the Store Orders server?`);
      return page;
    },
  };
}

export type EventsFeedClient = ReturnType<typeof createEventsFeedClient>;

/** The page's events with their exact JSON text, or undefined when the body is no events page. */
function parsePage(body: string): FeedPage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { data, nextCursor } = parsed as { data?: unknown; nextCursor?: unknown };
  const texts = arrayMemberTexts(body, 'data');
  if (!Array.isArray(data) || typeof nextCursor !== 'string' || texts?.length !== data.length) return undefined;
  const events: FeedEvent[] = [];
  for (const [index, event] of data.entries()) {
    const { id, type } = (typeof event === 'object' && event !== null ? event : {}) as { id?: unknown; type?: unknown };
    const payload = texts[index];
    if (typeof id !== 'string' || typeof type !== 'string' || payload === undefined) return undefined;
    events.push({ id, type, payload });
  }
  return { events, nextCursor, caughtUp: events.length < PAGE_LIMIT_MAX };
}

function errorRecord(body: string): { code: string; message: string } | undefined {
  try {
    const record = JSON.parse(body) as { code?: unknown; message?: unknown };
    return typeof record.code === 'string' && typeof record.message === 'string' ? { code: record.code, message: record.message } : undefined;
  } catch {
    return undefined;
  }
}
