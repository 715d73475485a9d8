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
    async listActive(accountId) {
      const rows = await sql<OrderRow>(`SELECT ${COLUMNS} FROM orders WHERE account_id = $1 AND status <> 'cancelled' ORDER BY id`, [
        accountId,
      ]);
      return rows.map(toOrder);
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
      // Order rows are locked in id order; the sort is stable, so changes of
      // one order keep their order and each is still decided by its own
      // conditional UPDATE. The version trigger also locks each account's
      // row, in that same order-id order, so two groups (or a group and a
      // single write) can still deadlock across accounts: PostgreSQL then
      // rolls one transaction back whole, and it is simply run again.
      const order = changes.map((change, index) => ({ change, index })).sort((a, b) => (a.change.id < b.change.id ? -1 : a.change.id > b.change.id ? 1 : 0));
      for (let attempt = 1; ; attempt++) {
        try {
          return await transaction(async (tx) => {
            const results = new Array<StatusChangeResult>(changes.length);
            for (const { change, index } of order) results[index] = await changeOne(tx, change);
            return results;
          });
        } catch (error) {
          // After the last attempt the conflict surfaces as a retryable 503.
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
        for await (const batch of batches) {
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
                throw reason instanceof Error ? new ImportRejectedError(position + index, reason) : reason;
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
