import { ConflictError, NotFoundError } from '../../errors/errors.js';
import {
  ImportRejectedError,
  type ListedOrder,
  type NewOrder,
  type Order,
  type OrderPageQuery,
  type OrderStatus,
  type OrdersRepository,
  type StatusChangeResult,
} from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { FOREIGN_KEY_VIOLATION, isTransactionConflict, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';
import { changeOne, changeRound, GROUP_ATTEMPTS, rounds } from './postgres-status-changes.js';

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
