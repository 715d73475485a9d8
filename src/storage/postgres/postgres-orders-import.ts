import type { NewEvent } from '../../events/events-repository.js';
import { importedOrder, orderCreatedEvent } from '../../orders/order-change-records.js';
import { insertEventsFrom } from './postgres-events.js';
import { ImportRejectedError, type ImportBatch, type NewOrder } from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { LARGEST_ID, placeIds } from './postgres-order-ids.js';
import { copyValue, type CopyIn, type Sql } from './postgres-sql.js';

/**
 * Orders per run (and events per statement): the import service's batches
 * (1,000 orders) are gathered into runs this long, and a larger batch split,
 * so that no statement comes near the statement timeout.
 */
const IMPORT_CHUNK = 10_000;
/** As for create: how many times a run is placed again when concurrent creates keep taking its ids. */
const PLACE_ATTEMPTS = 20;

/**
 * A run is staged by COPY into this table, then inserted from it by one
 * statement for its orders and one for their events. A temporary table
 * created and dropped (ON COMMIT DROP) inside the import's transaction: no
 * session state outlives it, so it works through a transaction-mode pooler.
 */
const STAGING = 'store_orders_import';
const CREATE_STAGING = `CREATE TEMP TABLE ${STAGING} (
  position integer, id bigint, account_id bigint, pet_id bigint, quantity integer, ship_date timestamptz, complete boolean,
  status text, created_at timestamptz, event_account_id bigint, event_id text, event_type text, subject text, event_at timestamptz, payload text
) ON COMMIT DROP`;
const COPY_RUN = `COPY ${STAGING} FROM STDIN`;

/**
 * The staged run's orders, in their order. A taken id is skipped rather
 * than raised, so that no error aborts the transaction: an import runs
 * without savepoints, because each savepoint's foreign-key lock on the
 * account row joins a multixact that grows with every savepoint before it
 * (measured: 30 statements of 1,000 rows each in a savepoint took 0.4 s at
 * first, 4.6 s after 270 more). RETURNING tells which orders went in.
 */
const INSERT_RUN = `INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at)
  SELECT id, account_id, pet_id, quantity, ship_date, complete, status, created_at, created_at
  FROM ${STAGING} ORDER BY position
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/** The staged run's events, as insertEventsFrom reads them. */
const STAGED_EVENTS = `SELECT event_account_id AS account_id, event_id AS id, event_type AS type, subject, event_at AS created_at, payload, position AS ord
  FROM ${STAGING}`;

/**
 * An order's columns after its id, as COPY text (tab-separated), written for
 * a whole run while the run before is executing.
 */
function columnsAfterId(order: NewOrder): string {
  return [order.accountId, order.petId, order.quantity, order.shipDate, order.complete, order.status, order.createdAt].map(copyValue).join('\t');
}

/** The run's staging rows: each order placed at its id, beside its event. */
function stagedRows(placed: readonly bigint[], tails: readonly string[], events: readonly NewEvent[]): string {
  let rows = '';
  for (const [index, event] of events.entries()) {
    const eventColumns = [event.accountId, event.id, event.type, event.subject, event.createdAt, event.payload].map(copyValue).join('\t');
    rows += `${index + 1}\t${String(placed[index])}\t${tails[index] ?? ''}\t${eventColumns}\n`;
  }
  return rows;
}

/** Why storage refuses an order, as the domain errors create reports. */
export interface Refusals {
  idTaken(order: NewOrder): Error;
  unknownAccount(order: NewOrder): Error;
}

/** The index of the first of `placed` that is not among `inserted` (each inserted id matching one order). */
function firstRefused(placed: readonly bigint[], inserted: readonly bigint[]): number {
  const left = new Map<bigint, number>();
  for (const id of inserted) left.set(id, (left.get(id) ?? 0) + 1);
  return placed.findIndex((id) => {
    const count = left.get(id) ?? 0;
    left.set(id, count - 1);
    return count === 0;
  });
}

/**
 * OrdersRepository.importOrders inside an open transaction: per run of
 * IMPORT_CHUNK orders, one COPY (the orders, placed as inserting them one by
 * one would place them, and their events) and two set-based statements (the
 * orders, their events); the first order refused named by its line.
 */
export async function importBatches(tx: Sql, copyIn: CopyIn, batches: AsyncIterable<ImportBatch>, refusals: Refusals): Promise<{ imported: number }> {
  /** Accounts seen to exist in this transaction (an account is never deleted). */
  const accounts = new Set<number>();
  let position = 0;
  let staging: Promise<unknown> | undefined;

  async function importRun(run: readonly NewOrder[], lineOf: (index: number) => number, runTails: readonly string[]): Promise<void> {
    staging ??= tx(CREATE_STAGING);
    await staging;
    const unseen = [...new Set(run.map((order) => order.accountId))].filter((id) => !accounts.has(id));
    if (unseen.length > 0) {
      for (const { id } of await tx<{ id: bigint }>('SELECT id FROM accounts WHERE id = ANY($1::bigint[])', [unseen])) accounts.add(Number(id));
    }
    // The orders before the first of an unknown account go in (one of them may be refused first); that one is refused.
    const stranger = run.findIndex((order) => !accounts.has(order.accountId));
    const known = stranger === -1 ? run : run.slice(0, stranger);
    const needsLargest = known.some((order) => order.id === undefined);
    let events: NewEvent[] = [];
    for (let attempt = 1; known.length > 0; attempt++) {
      const largest = needsLargest ? ((await tx<{ largest: bigint }>(`SELECT ${LARGEST_ID} AS largest`))[0]?.largest ?? 0n) : 0n;
      const placed = placeIds(known, largest);
      events = known.map((order, index) => orderCreatedEvent(importedOrder(order, placed[index] ?? 0n), order.createdAt));
      await tx(`TRUNCATE ${STAGING}`);
      await copyIn(COPY_RUN, stagedRows(placed, runTails, events));
      const inserted = (await tx<{ id: bigint }>(INSERT_RUN)).map((row) => row.id);
      if (inserted.length === known.length) break;
      const refused = firstRefused(placed, inserted);
      const order = known[refused];
      if (order === undefined) throw new Error('an order was refused but none is missing');
      // An order without an id can only find its id taken when a concurrent
      // create committed it after the largest id was read (or at int64's
      // maximum, which the row-by-row rule refuses too): the run is placed
      // again, around it, as the row-by-row rule would have placed it.
      if (order.id === undefined && placed[refused] !== INT64_MAX && attempt < PLACE_ATTEMPTS) {
        await tx('DELETE FROM orders WHERE id = ANY($1::bigint[])', [inserted]);
        continue;
      }
      // An order without an id is refused for the id it was placed at (int64's maximum, taken).
      throw new ImportRejectedError(lineOf(refused), refusals.idTaken({ ...order, id: placed[refused] }));
    }
    // One order.created per order, in one statement per run as the orders were.
    if (events.length > 0) await insertEventsFrom(tx, STAGED_EVENTS, [], events.length);
    const order = run[stranger];
    if (order !== undefined) throw new ImportRejectedError(lineOf(stranger), refusals.unknownAccount(order));
  }

  // Batches are gathered into runs of IMPORT_CHUNK orders: a statement's
  // fixed cost (round trip, parse, the account's lock and version bump) is
  // then paid once per 10,000 orders rather than per batch of the service.
  // The next run is gathered and written out as COPY text (columnsAfterId) while the
  // database executes the one before: this process and the database work
  // at once instead of in turn. Runs still execute one after the other, in
  // order, and the next is sent only once the one before succeeded.
  let runOrders: NewOrder[] = [];
  let runLines: number[] = [];
  let previous: Promise<void> = Promise.resolve();
  /** A run has failed: the import stops reading at once rather than at the next run (a slow source would keep the transaction open). */
  let failed = false;
  const flush = async () => {
    const [orders, lines] = [runOrders, runLines];
    [runOrders, runLines] = [[], []];
    if (orders.length === 0) return;
    const tails = orders.map(columnsAfterId);
    await previous;
    previous = importRun(orders, (index) => lines[index] ?? 0, tails);
    // Awaited by the next flush, the next batch or the end; meanwhile its failure is not an unhandled rejection.
    previous.catch(() => {
      failed = true;
    });
  };
  try {
    for await (const { orders: batch, lines } of batches) {
      if (failed) await previous;
      for (const [index, order] of batch.entries()) {
        runOrders.push(order);
        runLines.push(lines[index] ?? position + index + 1);
        if (runOrders.length === IMPORT_CHUNK) await flush();
      }
      position += batch.length;
    }
  } catch (error) {
    // The orders read before the source failed come from earlier lines: a
    // refusal among them (in the run still executing, or in the run being
    // gathered, written now) is the error to report, as it would be had the
    // import written them one by one.
    await previous;
    await flush();
    await previous;
    throw error;
  }
  await flush();
  await previous;
  return { imported: position };
}
