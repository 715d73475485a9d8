import { createHash } from 'node:crypto';
import type { CursorCodec } from '../api/cursors.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../api/page-bounds.js';
import { InvalidInputError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import type { UsageRepository } from '../usage/usage-repository.js';
import type { RequestLog, RequestLogFilters, RequestLogPosition, RequestLogsRepository, StatusRange } from './request-logs-repository.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The methods a filter may name: those the store host answers. */
export const REQUEST_LOG_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** `409`, or a class: `4xx`. */
export const STATUS_FILTER_PATTERN = '^[1-5]([0-9]{2}|xx)$';

/** What each filter expects, as a refusal and the OpenAPI document say it (after "Expected: "). */
export const FILTER_DESCRIPTIONS = {
  status: 'a status such as 409, or a class such as 4xx; only answers with that status are listed.',
  method: `an HTTP method (${REQUEST_LOG_METHODS.join(', ')}); only requests with that method are listed.`,
  path: 'the start of a path, beginning with / (at most 256 characters), e.g. /v1/store/orders; only requests whose path starts with it are listed.',
  requestId: 'a request id as X-Request-Id carries it; only that request is listed.',
  keyId: "an API key's id (a positive integer); only requests made with that key are listed.",
  since: 'an ISO 8601 date-time with a time zone, e.g. 2026-11-27T10:00:00Z; only requests that arrived at or after it are listed.',
  until: 'an ISO 8601 date-time with a time zone, e.g. 2026-11-27T11:00:00Z; only requests that arrived before it are listed (the range is half-open).',
} as const;

const expected = (name: keyof typeof FILTER_DESCRIPTIONS) => `is not valid. Expected: ${FILTER_DESCRIPTIONS[name]}`;

/** A filter as a caller gives it (the query string, the portal's form), every part optional text or number. */
export interface RequestLogQuery {
  status?: string;
  method?: string;
  path?: string;
  requestId?: string;
  keyId?: number;
  since?: string;
  until?: string;
}

export interface RequestLogPage {
  entries: RequestLog[];
  nextCursor: string | null;
}

const invalidCursor = () => new InvalidInputError('cursor', 'is not valid: pass the nextCursor of a previous page unchanged (with the same filters).', 'invalid_cursor');

/** An instant given as ISO 8601 with a zone, as stored (UTC with milliseconds). */
function instant(name: 'since' | 'until', text: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new InvalidInputError(name, 'is not valid. Expected: an ISO 8601 date-time with a zone, e.g. 2026-11-27T10:00:00Z.');
  return new Date(ms).toISOString();
}

function statusRange(text: string): StatusRange {
  if (!new RegExp(STATUS_FILTER_PATTERN).test(text)) throw new InvalidInputError('status', expected('status'));
  if (text.endsWith('xx')) {
    const min = Number(text[0]) * 100;
    return { min, max: min + 99 };
  }
  return { min: Number(text), max: Number(text) };
}

/** The caller's filter, checked and in stored form. */
function parseRequestLogFilters(query: RequestLogQuery): RequestLogFilters {
  const filters: RequestLogFilters = {};
  if (query.status !== undefined) filters.status = statusRange(query.status);
  if (query.method !== undefined) {
    const method = query.method.toUpperCase();
    if (!(REQUEST_LOG_METHODS as readonly string[]).includes(method)) throw new InvalidInputError('method', expected('method'));
    filters.method = method;
  }
  if (query.path !== undefined) {
    if (!query.path.startsWith('/') || query.path.length > 256) throw new InvalidInputError('path', expected('path'));
    filters.pathPrefix = query.path;
  }
  if (query.requestId !== undefined) {
    if (!/^[A-Za-z0-9._:-]{1,128}$/.test(query.requestId)) throw new InvalidInputError('requestId', expected('requestId'));
    filters.requestId = query.requestId;
  }
  if (query.keyId !== undefined) {
    if (!Number.isSafeInteger(query.keyId) || query.keyId < 1) throw new InvalidInputError('keyId', expected('keyId'));
    filters.keyId = query.keyId;
  }
  if (query.since !== undefined) filters.since = instant('since', query.since);
  if (query.until !== undefined) filters.until = instant('until', query.until);
  if (filters.since !== undefined && filters.until !== undefined && filters.since > filters.until) {
    throw new InvalidInputError('until', 'is not valid: it is earlier than since.');
  }
  return filters;
}

/**
 * What a cursor of this listing binds: the listing's name and its filters,
 * so a cursor carried to other filters, or to another listing signed by the
 * same codec, is refused.
 */
function filterDigest(filters: RequestLogFilters): string {
  const canonical = JSON.stringify([filters.status?.min, filters.status?.max, filters.method, filters.pathPrefix, filters.requestId, filters.keyId, filters.since, filters.until]);
  return `request-logs:${createHash('sha256').update(canonical).digest('base64url').slice(0, 22)}`;
}

/**
 * The request logs of an account: read newest first, filtered, by signed
 * cursor; deleted once older than the retention (REQUEST_LOG_RETENTION_DAYS).
 * Written by the recorder (request-log-recorder.ts), never here.
 */
export function createRequestLogsService({
  requestLogsRepository,
  usageRepository,
  cursors,
  clock,
  retentionDays,
}: {
  requestLogsRepository: RequestLogsRepository;
  /** The per account-hour counters (usage/), kept as long as the logs they count. */
  usageRepository: Pick<UsageRepository, 'deleteBefore'>;
  cursors: CursorCodec;
  clock: Clock;
  retentionDays: number;
}) {
  return {
    /**
     * One page of the account's request logs matching `query`, newest first.
     * A cursor of another account, of other filters or altered is refused (invalid_cursor).
     */
    async list(accountId: number, query: RequestLogQuery, { limit, cursor }: { limit: number; cursor?: string }): Promise<RequestLogPage> {
      if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
        throw new InvalidInputError('limit', `is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}`);
      }
      const filters = parseRequestLogFilters(query);
      const digest = filterDigest(filters);
      let before: RequestLogPosition | undefined;
      if (cursor !== undefined) {
        const position = await cursors.decode(cursor);
        const at = position?.afterKey === undefined || !/^\d{1,15}$/.test(position.afterKey) ? undefined : new Date(Number(position.afterKey)).toISOString();
        if (position === undefined || position.accountId !== accountId || position.filterDigest !== digest || at === undefined) throw invalidCursor();
        before = { at, id: position.afterId };
      }
      const rows = await requestLogsRepository.listPage({ accountId, filters, ...(before === undefined ? {} : { before }), limit: limit + 1 });
      const entries = rows.slice(0, limit);
      const last = entries.at(-1);
      const nextCursor =
        rows.length > limit && last !== undefined
          ? await cursors.encode({ accountId, filterDigest: digest, afterId: last.id, afterKey: String(Date.parse(last.at)) })
          : null;
      return { entries, nextCursor };
    },

    /** One of the account's request logs, or undefined (another account's is never found). */
    find(accountId: number, id: bigint): Promise<RequestLog | undefined> {
      return requestLogsRepository.findById(accountId, id);
    },

    /**
     * Deletes at most `limit` request logs older than the retention, and at
     * most `limit` usage hours that ended before it; answers the larger of
     * the two counts, so that the pruner's rounds (events/events-pruner.ts)
     * go on while either reached `limit`.
     */
    async pruneExpired(limit: number): Promise<number> {
      const cutoff = clock.now().getTime() - retentionDays * DAY_MS;
      const before = new Date(cutoff).toISOString();
      const logs = await requestLogsRepository.deleteOlderThan(before, limit);
      // An hour is kept while any of it is within the retention: those starting an hour or more before the cutoff go.
      const hours = await usageRepository.deleteBefore(new Date(cutoff - HOUR_MS + 1).toISOString(), limit);
      return Math.max(logs, hours);
    },
  };
}

export type RequestLogsService = ReturnType<typeof createRequestLogsService>;
