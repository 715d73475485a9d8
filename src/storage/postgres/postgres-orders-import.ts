import { importedOrder, orderCreatedEvent } from '../../orders/order-change-records.js';
import { ImportRejectedError, type ImportBatch, type NewOrder } from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { createEventCopier, type PreparedEvents } from './postgres-events-copy.js';
import { LARGEST_ID, placeIds } from './postgres-order-ids.js';
import { copyRows, YIELD_EVERY, yieldToEventLoop } from './postgres-copy-rows.js';
import { arrayLiteral, type CopyIn, type Sql } from './postgres-sql.js';

/**
 * Orders per run: the first two runs RUN_FIRST, each later one twice the one
 * before, up to RUN_MAX. A run is one COPY of its orders, in a savepoint of
 * its own, and one of their events: a statement's fixed cost is paid per run
 * rather than per batch of the service (1,000 orders), no statement comes
 * near the statement timeout, and a million orders take 16 runs, so 16
 * savepoints. (A transaction with more than 64 subtransactions sends every
 * concurrent snapshot to pg_subtrans for its ids: an import of more than
 * about 4.9 million orders does.)
 */
const RUN_FIRST = 10_000;
const RUN_MAX = 80_000;
/** As for create: how many times a run is placed again when concurrent creates keep taking its ids. */
const PLACE_ATTEMPTS = 20;

/**
 * Straight into the table: COPY writes the rows a page at a time and checks
 * each account once per statement (the orders_version trigger). A taken id
 * fails the COPY; the run's savepoint keeps the import going (see insertRun).
 */
const COPY_ORDERS = 'COPY orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at) FROM STDIN (FORMAT binary)';

/**
 * The statement-level triggers on orders and events (the account checks,
 * migration 0011) see each COPY's rows in a transition table, which spills
 * to a temporary file past work_mem (4 MB by default; a run of RUN_MAX
 * events is some 32 MB): kept in memory for this transaction only, the
 * import's database time is about 4 % shorter.
 */
const IMPORT_WORK_MEM = "SET LOCAL work_mem = '64MB'";

/** The run's length: RUN_FIRST for the first two, then doubling up to RUN_MAX. */
const runLength = (index: number): number => Math.min(RUN_MAX, RUN_FIRST * 2 ** Math.max(0, index - 1));

/** The orders' rows for COPY_ORDERS, each at its id (updated_at is created_at). */
async function orderRows(orders: readonly NewOrder[], ids: readonly bigint[]): Promise<Uint8Array[]> {
  const rows = copyRows();
  for (const [index, { accountId, petId, quantity, shipDate, complete, status, createdAt }] of orders.entries()) {
    if (index > 0 && index % YIELD_EVERY === 0) await yieldToEventLoop();
    rows.row(9);
    rows.int8(ids[index]);
    rows.int8(accountId);
    rows.int8(petId);
    rows.int4(quantity);
    rows.timestamptz(shipDate);
    rows.bool(complete);
    rows.text(status);
    rows.timestamptz(createdAt);
    rows.timestamptz(createdAt);
  }
  return rows.done();
}

/** A run of orders, each with its source line. */
interface Run {
  orders: readonly NewOrder[];
  lines: readonly number[];
}

/** A run placed at its ids, and written out as its orders' and events' rows. */
interface PlacedRun {
  /** The largest id before the run that the placement assumed. */
  largest: bigint;
  ids: readonly bigint[];
  rows: Uint8Array[];
  events: PreparedEvents;
}

/** Why storage refuses an order, as the domain errors create reports. */
export interface Refusals {
  idTaken(order: NewOrder): Error;
  unknownAccount(order: NewOrder): Error;
}

/**
 * The index of the first of `ids` that is taken, by an order in the table
 * (this import's earlier runs included) or by an earlier one of `ids`; -1
 * when none is.
 */
async function firstTaken(tx: Sql, ids: readonly bigint[]): Promise<number> {
  const rows = await tx<{ id: bigint }>('SELECT id FROM orders WHERE id = ANY ($1::bigint[])', [arrayLiteral(ids, (id) => id)]);
  const taken = new Set(rows.map((row) => row.id));
  return ids.findIndex((id) => {
    if (taken.has(id)) return true;
    taken.add(id);
    return false;
  });
}

/**
 * OrdersRepository.importOrders inside an open transaction: per run, one
 * COPY of its orders (placed as inserting them one by one would place them)
 * and one of their events; the first order refused named by its line.
 */
export async function importBatches(tx: Sql, copyIn: CopyIn, batches: AsyncIterable<ImportBatch>, refusals: Refusals): Promise<{ imported: number }> {
  await tx(IMPORT_WORK_MEM);
  /** Accounts seen to exist in this transaction (an account is never deleted). */
  const accounts = new Set<number>();
  const events = createEventCopier(tx, copyIn);
  /** The largest id below int64's maximum once the runs placed so far are in, as far as this import can tell. */
  let foreseen: bigint | undefined;
  let position = 0;

  /** `orders` placed after `largest`, with their order.created events (at the positions `revising` assumed, when given). */
  async function place(orders: readonly NewOrder[], largest: bigint, revising?: PreparedEvents): Promise<PlacedRun> {
    const { ids, largest: after } = placeIds(orders, largest);
    foreseen = after;
    // Made as their rows are written, and again if their positions were not foreseen: never held as a run's array.
    function* created() {
      for (const [index, order] of orders.entries()) yield orderCreatedEvent(importedOrder(order, ids[index] ?? 0n), order.createdAt);
    }
    return { largest, ids, rows: await orderRows(orders, ids), events: await events.prepare(created, revising) };
  }

  /**
   * Writes orders of known accounts, `ahead` their placement when made
   * before the run's turn. The savepoint lets a COPY that finds an id taken
   * fail without ending the import: the run is then placed again (an order
   * without an id whose id a concurrent create took: as the row-by-row rule
   * would have placed it), or its first refused order reported. No
   * savepoint is ever rolled back otherwise.
   */
  async function insertRun(orders: readonly NewOrder[], lineOf: (index: number) => number, ahead: PlacedRun | undefined, onPlaced: () => void): Promise<void> {
    const needsLargest = orders.some((order) => order.id === undefined);
    let placed = ahead;
    let revising = ahead?.events;
    // Rolled back to, the savepoint stays: a run placed again is written in the same one.
    await tx('SAVEPOINT import_run');
    for (let attempt = 1; ; attempt++) {
      const largest = needsLargest ? ((await tx<{ largest: bigint }>(`SELECT ${LARGEST_ID} AS largest`))[0]?.largest ?? 0n) : (placed?.largest ?? foreseen ?? 0n);
      // Placed ahead on what this import foresaw; placed again if a concurrent create changed the largest id meanwhile.
      if (placed === undefined || placed.largest !== largest) placed = await place(orders, largest, revising);
      revising = placed.events;
      onPlaced();
      try {
        await copyIn(COPY_ORDERS, placed.rows);
        await tx('RELEASE SAVEPOINT import_run');
        break;
      } catch (error) {
        if (sqlState(error) !== UNIQUE_VIOLATION) throw error;
        await tx('ROLLBACK TO SAVEPOINT import_run');
        const refused = await firstTaken(tx, placed.ids);
        const order = orders[refused];
        const id = placed.ids[refused];
        // An order without an id can only find its id taken when a concurrent
        // create committed it after the largest id was read (or at int64's
        // maximum, which the row-by-row rule refuses too): the run is placed
        // again, around it. (None found taken: the conflicting order is gone again.)
        if (order === undefined || (order.id === undefined && id !== INT64_MAX)) {
          if (attempt >= PLACE_ATTEMPTS) throw error;
          placed = undefined;
          continue;
        }
        throw new ImportRejectedError(lineOf(refused), refusals.idTaken({ ...order, id }));
      }
    }
    // One order.created per order, by one COPY per run as the orders were.
    await events.write(placed.events);
  }

  /** Writes a run; `onPlaced` once it is placed, or has ended without being placed. */
  async function importRun({ orders, lines }: Run, ahead: PlacedRun | undefined, onPlaced: () => void): Promise<void> {
    try {
      await importKnown({ orders, lines }, ahead, onPlaced);
    } finally {
      onPlaced();
    }
  }

  async function importKnown({ orders, lines }: Run, ahead: PlacedRun | undefined, onPlaced: () => void): Promise<void> {
    const unseen = [...new Set(orders.map((order) => order.accountId))].filter((id) => !accounts.has(id));
    if (unseen.length > 0) {
      for (const { id } of await tx<{ id: bigint }>('SELECT id FROM accounts WHERE id = ANY($1::bigint[])', [unseen])) accounts.add(Number(id));
    }
    // The orders before the first of an unknown account go in (one of them may be refused first); that one is refused.
    const stranger = orders.findIndex((order) => !accounts.has(order.accountId));
    const lineOf = (index: number) => lines[index] ?? 0;
    if (stranger === -1) await insertRun(orders, lineOf, ahead, onPlaced);
    else if (stranger > 0) await insertRun(orders.slice(0, stranger), lineOf, undefined, onPlaced);
    const order = orders[stranger];
    if (order !== undefined) throw new ImportRejectedError(lineOf(stranger), refusals.unknownAccount(order));
  }

  // Batches are gathered into runs (runLength): a statement's fixed cost
  // (round trip, parse, the account's lock and version bump) is then paid
  // once per run rather than per batch of the service. The next run is
  // gathered, and when this process can foresee where it lands (its accounts
  // seen, the run before placed) placed and written out as COPY rows, while
  // the database executes the one before: this process and the database
  // work at once instead of in turn. Runs still execute one after the
  // other, in order, and the next is sent only once the one before succeeded.
  let runOrders: NewOrder[] = [];
  let runLines: number[] = [];
  let runs = 0;
  let previous: Promise<void> = Promise.resolve();
  /** Settles once the run started last is placed (or ended unplaced): the next one is placed after it, on what it left. */
  let lastPlaced: Promise<void> = Promise.resolve();
  /** A run has failed: the import stops reading at once rather than at the next run (a slow source would keep the transaction open). */
  let failed = false;
  const flush = async () => {
    const [orders, lines] = [runOrders, runLines];
    [runOrders, runLines] = [[], []];
    if (orders.length === 0) return;
    runs++;
    await lastPlaced;
    const ahead = !failed && orders.every((order) => accounts.has(order.accountId)) ? await place(orders, foreseen ?? 0n) : undefined;
    await previous;
    let onPlaced: () => void = () => undefined;
    lastPlaced = new Promise<void>((resolve) => {
      onPlaced = resolve;
    });
    previous = importRun({ orders, lines }, ahead, onPlaced);
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
        if (runOrders.length === runLength(runs)) await flush();
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
