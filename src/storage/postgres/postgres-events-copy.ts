import type { NewEvent } from '../../events/events-repository.js';
import { copyRows, YIELD_EVERY, yieldToEventLoop } from './postgres-copy-rows.js';
import { BUMPED_FROM_COUNTS, markQueued, toldFor } from './postgres-events.js';
import { arrayLiteral, type CopyIn, type Sql } from './postgres-sql.js';

/** Each account's events of a run, in account id order (the order their rows are locked in). */
type Counts = ReadonlyMap<number, number>;

/** An import's run of events, prepared for EventCopier.write. */
export interface PreparedEvents {
  /** Makes the run's events, each time anew (their ids included). */
  readonly make: () => Iterable<NewEvent>;
  readonly counts: Counts;
  /** The base (position before its first new event) of each account that `rows` assumed. */
  readonly bases: ReadonlyMap<number, bigint> | undefined;
  /** The rows, when their positions could be foreseen. */
  readonly rows: Uint8Array[] | undefined;
}

/** Events by COPY, run after run, in an import's one transaction (see createEventCopier). */
export interface EventCopier {
  /**
   * The events `make` gives, positioned after the runs prepared before; with
   * `revising` (the same orders placed again: as many events of each
   * account), at the positions it assumed.
   */
  prepare(make: () => Iterable<NewEvent>, revising?: PreparedEvents): Promise<PreparedEvents>;
  /** Writes a prepared run; runs are written in the order they were prepared. */
  write(prepared: PreparedEvents): Promise<void>;
}

const BUMP_COUNTS = `WITH counts AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS c(account_id, n)),${BUMPED_FROM_COUNTS}
SELECT id, base FROM bumped`;

const COPY_EVENTS = 'COPY events (account_id, position, id, type, subject, created_at, payload) FROM STDIN (FORMAT binary)';

/** The hand-off of the events just copied: NOTIFY when one of their accounts has an enabled endpoint (the engine's claim makes the deliveries). */
const TELL_COPIED = `SELECT ${toldFor('SELECT unnest($1::bigint[])')} AS told`;

/**
 * The events as COPY rows, each account's numbered on from its base (as
 * `baseOf` said at its first event: the bases returned), and how many each
 * account has; no rows when an account's base is unknown. Now and then the
 * event loop is let run (see YIELD_EVERY).
 */
async function eventRows(
  events: Iterable<NewEvent>,
  baseOf: ((account: number) => bigint | undefined) | undefined,
): Promise<{ rows: Uint8Array[] | undefined; counts: Counts; bases: ReadonlyMap<number, bigint> | undefined }> {
  const counts = new Map<number, number>();
  const bases = new Map<number, bigint>();
  const rows = copyRows();
  let known = baseOf !== undefined;
  let made = 0;
  for (const event of events) {
    if (++made % YIELD_EVERY === 0) await yieldToEventLoop();
    const n = (counts.get(event.accountId) ?? 0) + 1;
    counts.set(event.accountId, n);
    if (!known) continue;
    let base = bases.get(event.accountId);
    if (base === undefined) {
      base = baseOf?.(event.accountId);
      if (base === undefined) {
        known = false;
        continue;
      }
      bases.set(event.accountId, base);
    }
    rows.row(7);
    rows.int8(event.accountId);
    // A safe integer is written without making a bigint of each position.
    const position = Number(base) + n;
    rows.int8(Number.isSafeInteger(position) ? position : base + BigInt(n));
    rows.text(event.id);
    rows.text(event.type);
    rows.text(event.subject);
    rows.timestamptz(event.createdAt);
    rows.text(event.payload);
  }
  const sorted = new Map([...counts].sort(([a], [b]) => a - b));
  return known ? { rows: rows.done(), counts: sorted, bases } : { rows: undefined, counts: sorted, bases: undefined };
}

/**
 * The outbox of an import, whose runs are sent by COPY: per run, one
 * statement bumps each account's events_position (as insertEventsFrom does:
 * the rows locked in id order, held until the import ends), the rows go in
 * by COPY at the positions that gave, and one statement tells the delivery
 * engines when an account has an enabled endpoint (their claims make the
 * deliveries from each endpoint's cursor).
 * Because the import holds its accounts' rows from its first run on, the
 * positions of a later run are known before it is written: prepare writes
 * its rows then (while the database works on the run before), and write
 * checks the bases the bump returns, making the rows again if one differs.
 */
export function createEventCopier(tx: Sql, copyIn: CopyIn): EventCopier {
  /** Per account: the position of its last event written, and its events prepared but not yet written. */
  const written = new Map<number, bigint>();
  const ahead = new Map<number, number>();
  /** An account's base after the runs prepared so far, once its first run is written. */
  const foreseen = (account: number): bigint | undefined => {
    const last = written.get(account);
    return last === undefined ? undefined : last + BigInt(ahead.get(account) ?? 0);
  };
  return {
    async prepare(make, revising) {
      if (revising !== undefined) {
        const assumed = revising.bases;
        const { rows } = await eventRows(make(), assumed && ((account) => assumed.get(account)));
        return { make, counts: revising.counts, bases: assumed, rows };
      }
      const { rows, counts, bases } = await eventRows(make(), foreseen);
      for (const [account, n] of counts) ahead.set(account, (ahead.get(account) ?? 0) + n);
      return { make, counts, bases, rows };
    },
    async write({ make, counts, bases: assumed, rows }) {
      const accounts = [...counts.keys()];
      if (accounts.length === 0) return;
      const bumped = await tx<{ id: bigint; base: bigint }>(BUMP_COUNTS, [arrayLiteral(accounts, (id) => id), arrayLiteral(accounts, (id) => counts.get(id))]);
      // Only an account that does not exist can be missing; its change must not commit alone.
      if (bumped.length !== accounts.length) throw new Error(`events of ${accounts.length} accounts to write, ${accounts.length - bumped.length} of them missing`);
      const bases = new Map(bumped.map(({ id, base }) => [Number(id), base]));
      for (const [account, n] of counts) {
        ahead.set(account, (ahead.get(account) ?? 0) - n);
        written.set(account, (bases.get(account) ?? 0n) + BigInt(n));
      }
      const foreseenRight = rows !== undefined && assumed !== undefined && accounts.every((id) => assumed.get(id) === bases.get(id));
      await copyIn(COPY_EVENTS, (foreseenRight ? rows : (await eventRows(make(), (account) => bases.get(account))).rows) ?? []);
      const [row] = await tx<{ told: number }>(TELL_COPIED, [arrayLiteral(accounts, (id) => id)]);
      if ((row?.told ?? 0) > 0) markQueued(tx);
    },
  };
}
