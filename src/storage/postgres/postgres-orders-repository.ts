import { ConflictError, NotFoundError } from '../../errors/errors.js';
import type { NewOrder, Order, OrderPageQuery, OrderStatus, OrdersRepository } from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

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

export function createPostgresOrdersRepository(sql: Sql): OrdersRepository {
  async function insert(order: NewOrder): Promise<Order> {
    const [row] = await sql<OrderRow>(
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
          if (state === UNIQUE_VIOLATION) {
            throw new ConflictError('order_id_taken', `Order id ${String(order.id)} is already taken.`);
          }
          if (state === FOREIGN_KEY_VIOLATION) {
            throw new NotFoundError('account_not_found', `Account ${order.accountId} does not exist.`);
          }
          throw error;
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
    async changeStatus({ id, accountId, from, to, at }) {
      const scoped = accountId !== undefined;
      // One conditional UPDATE decides: of any number of concurrent callers,
      // exactly one matches the row while it is still in `from`.
      const updated = await sql(
        `UPDATE orders SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4${scoped ? ' AND account_id = $5' : ''} RETURNING id`,
        scoped ? [to, at, id, from, accountId] : [to, at, id, from],
      );
      if (updated.length > 0) return { changed: true };
      // The write decided; this read only explains the refusal. Orders never
      // return to a status they left, so what it sees is still "not `from`".
      const [row] = await sql<{ status: OrderStatus }>(
        `SELECT status FROM orders WHERE id = $1${scoped ? ' AND account_id = $2' : ''}`,
        scoped ? [id, accountId] : [id],
      );
      return row === undefined ? { changed: false } : { changed: false, current: row.status };
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
