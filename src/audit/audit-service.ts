import { InvalidInputError, ValidationError } from '../errors/errors.js';
import { createBatcher } from '../shared/batcher.js';
import type { Clock } from '../shared/clock.js';
import type { CursorCodec } from '../api/cursors.js';
import type { AuditAction, AuditActor, AuditDetails, AuditEntry, AuditRepository, AuditTarget, NewAuditEntry } from './audit-repository.js';

export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 200;
/** The page size as clients are told it, in the OpenAPI document and in a refusal. */
export const AUDIT_LIMIT_DESCRIPTION = `an integer from 1 to ${AUDIT_LIMIT_MAX} (default ${AUDIT_LIMIT_DEFAULT}).`;

const DETAILS_MAX_KEYS = 8;
const DETAIL_TEXT_MAX = 200;
const DETAIL_KEY = /^[a-z][A-Za-z0-9_]{0,39}$/;
/** Deleted per statement when pruning, so that no single transaction holds the database long. */
const PRUNE_BATCH = 5000;
const DAY_MS = 86_400_000;

/**
 * Stands where the orders' cursors carry their filter digest (22 characters
 * of base64url): an orders cursor never decodes as an audit cursor, nor the
 * other way round, though both are signed by the same codec.
 */
const AUDIT_CURSOR_LISTING = 'audit-events';

/** One action to record; the time is the service's clock. */
export interface AuditRecord {
  accountId: number;
  action: AuditAction;
  actor: AuditActor;
  address?: string;
  target?: AuditTarget;
  details?: AuditDetails;
}

/** An entry that could not be written, as the failure listeners hear of it: without an account when the accounts it was for could not be read. */
export type UnrecordedEntry = Omit<NewAuditEntry, 'accountId'> & { accountId?: number };

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: string | null;
}

const invalidCursor = () => new InvalidInputError('cursor', 'is not valid: pass the nextCursor of a previous page unchanged.', 'invalid_cursor');

/**
 * The audit trail: who did what to an account, when and from where. Entries
 * are written in batches (the writes that arrive together share one
 * transaction), read newest first by a signed cursor, and deleted once older
 * than the retention period.
 */
export function createAuditService({
  auditRepository,
  cursors,
  clock,
  retentionDays,
}: {
  auditRepository: AuditRepository;
  /** The v2 listing's cursor codec: one signing key for every cursor of the API. */
  cursors: CursorCodec;
  clock: Clock;
  retentionDays: number;
}) {
  const failureListeners = new Set<(error: unknown, entry: UnrecordedEntry) => void>();
  const append = createBatcher<NewAuditEntry, { error?: unknown }>(async (batch) => {
    try {
      await auditRepository.append(batch);
      return batch.map(() => ({}));
    } catch (error) {
      if (batch.length === 1) return [{ error }];
      // One bad entry (an unknown account) must not lose the others: each alone.
      const settled = await Promise.allSettled(batch.map((entry) => auditRepository.append([entry])));
      return settled.map((outcome) => (outcome.status === 'fulfilled' ? {} : { error: outcome.reason }));
    }
  });
  let timer: NodeJS.Timeout | undefined;
  let pruning: Promise<unknown> | undefined;

  async function record(input: AuditRecord): Promise<void> {
    const entry = toEntry(input, clock.now().toISOString());
    const { error } = await append(entry);
    if (error !== undefined) throw error;
  }

  async function recordAfterChange(input: AuditRecord): Promise<void> {
    try {
      await record(input);
    } catch (error) {
      unrecorded(error, input);
    }
  }

  function unrecorded(error: unknown, input: Omit<AuditRecord, 'accountId'> & { accountId?: number }): void {
    const entry = { ...input, at: clock.now().toISOString(), details: input.details ?? {} };
    for (const listener of failureListeners) listener(error, entry);
  }

  async function prune(): Promise<number> {
    const before = new Date(clock.now().getTime() - retentionDays * DAY_MS).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await auditRepository.deleteOlderThan(before, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }

  return {
    /**
     * Records one action. Rejects when the entry is malformed (a programming
     * error: ValidationError) or cannot be written (storage errors,
     * account_not_found).
     */
    record,

    /**
     * Records an action whose change has already committed: never rejects,
     * so that a failed audit write cannot turn a done change into an error.
     * A failure goes to the onRecordFailed listeners (the server logs it).
     */
    recordAfterChange,

    /**
     * Records an action that concerns several accounts, one entry in each of
     * the accounts `accountIds` reads (a user's own security events go to
     * every account the user belongs to: docs/audit.md, "Which account"), as
     * recordAfterChange does: never rejects. When the accounts cannot be
     * read, the listeners hear of the entry without an account.
     */
    async recordInEachAfterChange(accountIds: () => Promise<readonly number[]>, input: Omit<AuditRecord, 'accountId'>): Promise<void> {
      let ids: readonly number[];
      try {
        ids = await accountIds();
      } catch (error) {
        unrecorded(error, input);
        return;
      }
      await Promise.all(ids.map((accountId) => recordAfterChange({ ...input, accountId })));
    },

    /** Calls `listener` whenever recordAfterChange could not write its entry; returns the unsubscribe function. */
    onRecordFailed(listener: (error: unknown, entry: UnrecordedEntry) => void): () => void {
      failureListeners.add(listener);
      return () => failureListeners.delete(listener);
    },

    /**
     * One page of the account's entries, newest first. `cursor` is the
     * nextCursor of the previous page; one of another account, an altered or
     * an orders cursor is refused (invalid_cursor).
     */
    async list(accountId: number, { limit = AUDIT_LIMIT_DEFAULT, cursor }: { limit?: number; cursor?: string } = {}): Promise<AuditPage> {
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_LIMIT_MAX) {
        throw new InvalidInputError('limit', `is not valid. Expected: ${AUDIT_LIMIT_DESCRIPTION}`);
      }
      let beforeId: bigint | undefined;
      if (cursor !== undefined) {
        const position = await cursors.decode(cursor);
        if (position === undefined || position.accountId !== accountId || position.filterDigest !== AUDIT_CURSOR_LISTING) throw invalidCursor();
        // The codec's "after" is where the walk resumes: here, below this id.
        beforeId = position.afterId;
      }
      const rows = await auditRepository.listPage({ accountId, beforeId, limit: limit + 1 });
      const entries = rows.slice(0, limit);
      const last = entries.at(-1);
      const nextCursor =
        rows.length > limit && last !== undefined ? await cursors.encode({ accountId, filterDigest: AUDIT_CURSOR_LISTING, afterId: last.id }) : null;
      return { entries, nextCursor };
    },

    /** Deletes every entry older than the retention period; answers how many. */
    prune,

    /** Prunes now and then every `intervalMs` until stopPruning(); failures go to `onError` and are retried next time. */
    startPruning(intervalMs: number, onError: (error: unknown) => void): void {
      if (timer !== undefined) return;
      const run = () => {
        // A slow prune is never overlapped by the next.
        pruning ??= prune()
          .catch(onError)
          .finally(() => (pruning = undefined));
      };
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },

    /** Stops the timer and waits for a prune in progress. */
    async stopPruning(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await pruning;
    },
  };
}

/** Checks the record's free-form parts and stamps its time. */
function toEntry(input: AuditRecord, at: string): NewAuditEntry {
  const details = input.details ?? {};
  const keys = Object.keys(details);
  if (keys.length > DETAILS_MAX_KEYS) throw new ValidationError(`Audit details hold at most ${DETAILS_MAX_KEYS} keys.`);
  for (const key of keys) {
    const value = details[key];
    if (!DETAIL_KEY.test(key)) throw new ValidationError(`Audit detail name ${JSON.stringify(key.slice(0, 40))} is not valid.`);
    if (typeof value === 'string' ? value.length > DETAIL_TEXT_MAX : typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'boolean') {
      throw new ValidationError(`Audit detail ${key} must be a finite number, a boolean or a string of at most ${DETAIL_TEXT_MAX} characters.`);
    }
  }
  const entry: NewAuditEntry = { accountId: input.accountId, at, actor: input.actor, action: input.action, details };
  if (input.address !== undefined) entry.address = input.address;
  if (input.target !== undefined) entry.target = input.target;
  return entry;
}

export type AuditService = ReturnType<typeof createAuditService>;

/** What services that change audited things are given: only the after-commit recording. */
export type AuditRecorder = Pick<AuditService, 'recordAfterChange'>;
