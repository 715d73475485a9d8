import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { InvalidInputError, NotFoundError } from '../errors/errors.js';
import type { CursorCodec } from '../api/cursors.js';
import { PAGE_LIMIT_DESCRIPTION, PAGE_LIMIT_MAX } from '../api/page-bounds.js';
import type { EventFilter, EventsRepository, StoredEvent } from './events-repository.js';

export interface ListEventsRequest {
  filter: EventFilter;
  /** 1 to PAGE_LIMIT_MAX: checked here, the one place. */
  limit: number;
  /** A nextCursor from an earlier page, as received. */
  cursor?: string;
}

/** One page of the feed. The cursor is never null: it is where the next read starts, now or later. */
export interface EventsPage {
  events: StoredEvent[];
  nextCursor: string;
}

/**
 * Cursors are the v2 orders' signed cursors (orders-cursor.ts) carrying a
 * position; the digest binds them to the events feed and its filters, so an
 * orders cursor (or one of other filters) is refused here.
 */
function eventFilterDigest(filter: EventFilter): string {
  const canonical = JSON.stringify([
    'events',
    filter.types === undefined ? null : [...new Set(filter.types)].sort(),
    filter.createdFrom ?? null,
    filter.createdTo ?? null,
    // Appended only when given, so that the cursors of the feed without it stay valid.
    ...(filter.subject === undefined ? [] : [filter.subject]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/**
 * The event feed (issue 18): an account's events oldest first in commit
 * order, read by position. Every page, the last included, carries a cursor;
 * a page shorter than the limit means the client has caught up, and the same
 * cursor later returns only what committed since. Positions commit in
 * increasing order per account (see insertEvents), so a client resuming from
 * its last cursor sees every event exactly once.
 */
export function createEventsService({ eventsRepository, cursors, clock, retentionDays }: {
  eventsRepository: EventsRepository;
  cursors: CursorCodec;
  clock: Clock;
  /** Events older than this are pruned (pruneExpired). */
  retentionDays: number;
}) {
  const invalidCursor = () => new InvalidInputError('cursor', 'is not valid: pass the nextCursor of a previous page unchanged.', 'invalid_cursor');

  return {
    async listEvents(accountId: number, { filter, limit, cursor }: ListEventsRequest): Promise<EventsPage> {
      if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
        throw new InvalidInputError('limit', `is not valid. Expected: ${PAGE_LIMIT_DESCRIPTION}`);
      }
      const digest = eventFilterDigest(filter);
      let afterPosition = 0n;
      if (cursor !== undefined) {
        const position = await cursors.decode(cursor);
        // A cursor of another account is refused exactly like a forged one.
        if (position === undefined || position.accountId !== accountId) throw invalidCursor();
        if (position.filterDigest !== digest) {
          throw new InvalidInputError(
            'cursor',
            'belongs to a listing with other filters: repeat the type, createdFrom and createdTo of the first page.',
            'invalid_cursor',
          );
        }
        afterPosition = position.afterId;
      }
      const events = await eventsRepository.listPage({ accountId, filter, afterPosition, limit });
      const last = events.at(-1)?.position ?? afterPosition;
      return { events, nextCursor: await cursors.encode({ accountId, filterDigest: digest, afterId: last }) };
    },

    /** An event of the account; another account's is not found, exactly like a missing one. */
    async getEvent(accountId: number, eventId: string): Promise<StoredEvent> {
      const event = await eventsRepository.findForAccount(accountId, eventId);
      if (event === undefined) throw new NotFoundError('event_not_found', `Event ${eventId} was not found.`);
      return event;
    },

    /** Deletes up to `limit` events older than the retention; returns how many. */
    async pruneExpired(limit: number): Promise<number> {
      const before = new Date(clock.now().getTime() - retentionDays * 86_400_000).toISOString();
      return eventsRepository.pruneBefore(before, limit);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
