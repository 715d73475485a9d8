import { ConflictError, NotFoundError } from '../../errors/errors.js';
import {
  ImportRejectedError,
  type ListedOrder,
  type NewOrder,
  type Order,
  type OrderPageQuery,
  type OrderStatus,
  type OrdersRepository,
  type StatusChange,
  type StatusChangeResult,
} from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { FOREIGN_KEY_VIOLATION, isTransactionConflict, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

interface OrderRow {
  id: bigint;
  account_id: bigint;
  pet_id: bigint | null;
  quantity: number | null;
  ship_date: string | null;
  complete: boolean;
  status: OrderStatus;
}

const COLUMNS = `id, account_id, pet_id, quantity, ${isoTimestamp('ship_date')}, complete, status`;

/**
 * An id for an order created without one: one more than the largest below
 * int64's maximum, like SQLite's rowid choice. Two concurrent creates may pick
 * the same; the primary key refuses the second, which then tries again.
 */
const NEXT_ID = `(SELECT COALESCE(max(id), 0) + 1 FROM orders WHERE id < ${INT64_MAX})`;
const AUTO_ID_ATTEMPTS = 20;

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id, accountId: Number(row.account_id), complete: row.complete, status: row.status };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  return order;
}

const PAGE_COLUMNS = `id, pet_id, quantity, ${isoTimestamp('ship_date')}, complete`;
/** Rows per multi-row INSERT in an import: 8 parameters each, well under the protocol's 65,535. */
const IMPORT_CHUNK = 1000;

interface PageRow {
  id: bigint;
  pet_id: bigint | null;
  quantity: number | null;
  ship_date: string | null;
  complete: boolean;
}

function createError(order: NewOrder, error: unknown): unknown {
  const state = sqlState(error);
  if (state === UNIQUE_VIOLATION) return new ConflictError('order_id_taken', `Order id ${String(order.id)} is already taken.`);
  if (state === FOREIGN_KEY_VIOLATION) return new NotFoundError('account_not_found', `Account ${order.accountId} does not exist.`);
  return error;
}

/**
 * The conditional status change. One conditional UPDATE decides: of any
 * number of concurrent callers, exactly one matches the row while it is
 * still in `from`. The SELECT after a refusal only explains it (orders never
 * return to a status they left, so what it sees is still "not `from`").
 */
async function changeOne(sql: Sql, { id, accountId, from, to, at }: StatusChange): Promise<StatusChangeResult> {
  const scoped = accountId !== undefined;
  const updated = await sql(
    `UPDATE orders SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4${scoped ? ' AND account_id = $5' : ''} RETURNING id`,
    scoped ? [to, at, id, from, accountId] : [to, at, id, from],
  );
  if (updated.length > 0) return { changed: true };
  const [row] = await sql<{ status: OrderStatus }>(
    `SELECT status FROM orders WHERE id = $1${scoped ? ' AND account_id = $2' : ''}`,
    scoped ? [id, accountId] : [id],
  );
  return row === undefined ? { changed: false } : { changed: false, current: row.status };
}

/** Runs of a status-change group that a deadlock may roll back before it gives up. */
const GROUP_ATTEMPTS = 3;

/**
 * One round of a status-change group (no order id twice) in one statement,
 * so one round trip however many changes it holds.
 *
 * `locked` locks the named orders in id order (FOR NO KEY UPDATE returns
 * each row's latest committed version, waiting for a transaction that is
 * changing it); `due` keeps the changes whose order, so locked, is in `from`
 * and within the change's account; `accounts_locked` then locks the
 * accounts whose orders will change, in id order, before anything is
 * written. It cannot start before every order is locked (it reads all of
 * `due`), and the version trigger's own update of those accounts, at the
 * end of the statement, finds them already locked (left to the trigger,
 * they are locked in whatever order its plan yields, and two groups naming
 * orders of the same accounts can deadlock). So every group takes its row
 * locks in one global order (orders by id, then accounts by id), as does a
 * single change (its order, then its account), and groups do not deadlock
 * one another. Deciding on the locked row, not on this
 * statement's snapshot, is what makes each change exactly the conditional
 * write changeStatus makes: nobody else can move the row between the
 * decision and the UPDATE.
 *
 * A refused change reports the status it found, when the order is within
 * its account (another account's order looks absent).
 */
const CHANGE_ROUND = `
WITH u AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[])
    WITH ORDINALITY AS u(id, account_id, from_status, to_status, at, position)
),
locked AS (
  SELECT id, account_id, status FROM orders WHERE id = ANY ($1::bigint[]) ORDER BY id FOR NO KEY UPDATE
),
due AS (
  SELECT u.id, l.account_id, u.to_status, u.at FROM u JOIN locked l ON l.id = u.id
  WHERE l.status = u.from_status AND (u.account_id IS NULL OR l.account_id = u.account_id)
),
accounts_locked AS (
  SELECT id FROM accounts WHERE id = ANY (ARRAY(SELECT account_id FROM due)) ORDER BY id FOR NO KEY UPDATE
),
changed AS (
  UPDATE orders o SET status = d.to_status, updated_at = d.at FROM due d
  WHERE o.id = d.id AND d.account_id = ANY (ARRAY(SELECT id FROM accounts_locked))
  RETURNING o.id
)
SELECT c.id IS NOT NULL AS changed, CASE WHEN u.account_id IS NULL OR l.account_id = u.account_id THEN l.status END AS current
FROM u LEFT JOIN locked l ON l.id = u.id LEFT JOIN changed c ON c.id = u.id
ORDER BY u.position`;

interface Numbered {
  change: StatusChange;
  /** Its position in the group. */
  index: number;
}

/** Runs one round, writing each change's result at its position in `results`. */
async function changeRound(sql: Sql, round: readonly Numbered[], results: StatusChangeResult[]): Promise<void> {
  const rows = await sql<{ changed: boolean; current: OrderStatus | null }>(CHANGE_ROUND, [
    round.map(({ change }) => String(change.id)),
    round.map(({ change }) => change.accountId ?? null),
    round.map(({ change }) => change.from),
    round.map(({ change }) => change.to),
    round.map(({ change }) => change.at),
  ]);
  for (const [i, { index }] of round.entries()) {
    const row = rows[i];
    if (row === undefined) throw new Error(`a round of ${round.length} status changes got ${rows.length} results`);
    results[index] = row.changed ? { changed: true } : row.current === null ? { changed: false } : { changed: false, current: row.current };
  }
}

/**
 * Splits a group into rounds with no order id twice: a change goes to the
 * round after that of the previous change of its order. Changes of
 * different orders do not affect one another, so running the rounds in
 * turn decides each change as running the whole group in array order would.
 */
function rounds(changes: readonly StatusChange[]): Numbered[][] {
  const result: Numbered[][] = [];
  const seen = new Map<bigint, number>();
  for (const [index, change] of changes.entries()) {
    const round = seen.get(change.id) ?? 0;
    seen.set(change.id, round + 1);
    (result[round] ??= []).push({ change, index });
  }
  return result;
}

export function createPostgresOrdersRepository(sql: Sql, transaction: Transaction): OrdersRepository {
  async function insert(order: NewOrder, run: Sql = sql): Promise<Order> {
    const [row] = await run<OrderRow>(
      `INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at)
       VALUES (${order.id === undefined ? NEXT_ID : '$9'}, $1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        order.accountId,
        order.petId ?? null,
        order.quantity ?? null,
        order.shipDate ?? null,
        order.complete,
        order.status,
        order.createdAt,
        order.createdAt,
        ...(order.id === undefined ? [] : [order.id]),
      ],
    );
    if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
    return toOrder(row);
  }

  return {
    async create(order) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await insert(order);
        } catch (error) {
          const state = sqlState(error);
          if (state === UNIQUE_VIOLATION && order.id === undefined && attempt < AUTO_ID_ATTEMPTS) continue;
          throw createError(order, error);
        }
      }
    },
    async listAll(accountId) {
      const rows = await sql<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE account_id = $1 ORDER BY id`, [accountId]);
      return rows.map(toOrder);
    },
    async findById(id) {
      const [row] = await sql<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE id = $1`, [id]);
      return row && toOrder(row);
    },
    async changeStatus(change) {
      return changeOne(sql, change);
    },
    async changeStatusMany(changes) {
      if (changes.length === 0) return [];
      // A lone change (a quiet server: one request per turn of the event
      // loop) is exactly changeStatus: a plain conditional UPDATE, which
      // PostgreSQL plans and runs in about half the time of the group
      // statement, and that time is most of a lone cancel's latency besides
      // the commit.
      const [lone] = changes.length === 1 ? changes : [];
      const split = lone === undefined ? rounds(changes) : [];
      const apply = async (run: Sql, results: StatusChangeResult[]) => {
        for (const round of split) await changeRound(run, round, results);
      };
      for (let attempt = 1; ; attempt++) {
        const results = new Array<StatusChangeResult>(changes.length);
        try {
          // The usual group names each order once: one statement, committed
          // on its own, is the whole group's one round trip and one commit.
          // When an order is named again (e.g. two cancels of it arrived
          // together), the rounds run in turn in one transaction, each seeing
          // the last. A later round names only orders the first one already
          // locked, but may lock an account the first did not (its change of
          // that order was refused, a later one is not), so a deadlock is
          // then possible: rolled back whole and run again like any other.
          if (lone !== undefined) results[0] = await changeOne(sql, lone);
          else if (split.length === 1) await apply(sql, results);
          else await transaction((tx) => apply(tx, results));
          return results;
        } catch (error) {
          // PostgreSQL rolled the statement or transaction back: nothing of it
          // happened, so it is simply run again. After the last attempt the
          // conflict surfaces as a retryable 503.
          if (!isTransactionConflict(error) || attempt >= GROUP_ATTEMPTS) throw error;
        }
      }
    },
    async listActivePage(accountId, afterId, limit) {
      const rows =
        afterId === undefined
          ? await sql<PageRow>(`SELECT ${PAGE_COLUMNS} FROM orders WHERE account_id = $1 AND status <> 'cancelled' ORDER BY id LIMIT $2`, [accountId, limit])
          : await sql<PageRow>(
              `SELECT ${PAGE_COLUMNS} FROM orders WHERE account_id = $1 AND status <> 'cancelled' AND id > $2 ORDER BY id LIMIT $3`,
              [accountId, afterId, limit],
            );
      return rows.map((row) => {
        const order: ListedOrder = { id: row.id, complete: row.complete };
        if (row.pet_id !== null) order.petId = row.pet_id;
        if (row.quantity !== null) order.quantity = row.quantity;
        if (row.ship_date !== null) order.shipDate = row.ship_date;
        return order;
      });
    },
    async importOrders(batches) {
      return transaction(async (tx) => {
        let position = 0;
        for await (const { orders: batch, lines } of batches) {
          await tx('SAVEPOINT import_batch');
          try {
            await insertMany(tx, batch);
          } catch (error) {
            // Find the order that was refused, to name it.
            await tx('ROLLBACK TO SAVEPOINT import_batch');
            for (const [index, order] of batch.entries()) {
              try {
                await insert(order, tx);
              } catch (rowError) {
                const reason = createError(order, rowError);
                throw reason instanceof Error ? new ImportRejectedError(lines[index] ?? position + index + 1, reason) : reason;
              }
            }
            throw error;
          }
          // Released, so that a long import does not pile up subtransactions.
          await tx('RELEASE SAVEPOINT import_batch');
          position += batch.length;
        }
        return { imported: position };
      });
    },
    async listPage(query) {
      const { text, values } = pageSql(query);
      return (await sql<OrderRow>(text, values)).map(toOrder);
    },
    async ordersVersion(accountId) {
      const [row] = await sql<{ orders_version: bigint }>('SELECT orders_version FROM accounts WHERE id = $1', [accountId]);
      return row?.orders_version ?? 0n;
    },
  };

  async function insertMany(tx: Sql, batch: readonly NewOrder[]): Promise<void> {
    // An order without an id takes max(id) + 1 when it is inserted (as with
    // SQLite's rowid), so such a batch goes row by row, in file order.
    if (batch.some((order) => order.id === undefined)) {
      for (const order of batch) await insert(order, tx);
      return;
    }
    for (let start = 0; start < batch.length; start += IMPORT_CHUNK) {
      const chunk = batch.slice(start, start + IMPORT_CHUNK);
      const values: unknown[] = [];
      const tuples = chunk.map((order) => {
        const base = values.length;
        values.push(order.id, order.accountId, order.petId ?? null, order.quantity ?? null, order.shipDate ?? null, order.complete, order.status, order.createdAt);
        return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8}, $${base + 8})`;
      });
      await tx(
        `INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
  }
}

/** The keyset page query; its text depends only on which filters are present. */
export function pageSql({ accountId, filter, afterId, limit }: OrderPageQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [accountId];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['account_id = $1'];
  if (afterId !== undefined) where.push(`id > ${param(afterId)}`);
  // IN with one parameter per status (not = ANY(array)): with a single status
  // the planner then walks (account_id, status, id) in id order.
  if (filter.statuses !== undefined) where.push(`status IN (${filter.statuses.map((status) => param(status)).join(', ')})`);
  if (filter.petId !== undefined) where.push(`pet_id = ${param(filter.petId)}`);
  if (filter.complete !== undefined) where.push(`complete = ${param(filter.complete)}`);
  if (filter.shipDateFrom !== undefined) where.push(`ship_date >= ${param(filter.shipDateFrom)}::timestamptz`);
  if (filter.shipDateTo !== undefined) where.push(`ship_date < ${param(filter.shipDateTo)}::timestamptz`);
  return { text: `SELECT ${COLUMNS} FROM orders WHERE ${where.join(' AND ')} ORDER BY id LIMIT ${param(limit)}`, values };
}
