import type Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '../../errors/errors.js';
import type { Order, OrderPageQuery, OrderStatus, OrdersRepository } from '../../orders/orders-repository.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

interface OrderRow {
  id: bigint;
  account_id: bigint;
  pet_id: bigint | null;
  quantity: bigint | null;
  ship_date: string | null;
  complete: bigint;
  status: OrderStatus;
}

const COLUMNS = 'id, account_id, pet_id, quantity, ship_date, complete, status';

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id, accountId: Number(row.account_id), complete: row.complete === 1n, status: row.status };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = Number(row.quantity);
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  return order;
}

export function createSqliteOrdersRepository(db: Database.Database): OrdersRepository {
  const sql = statementCache(db);
  return {
    async create(order) {
      try {
        const row = sql(
            `INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
          )
          .get(
            order.id ?? null,
            order.accountId,
            order.petId ?? null,
            order.quantity ?? null,
            order.shipDate ?? null,
            order.complete ? 1 : 0,
            order.status,
            order.createdAt,
            order.createdAt,
          ) as OrderRow;
        return toOrder(row);
      } catch (error) {
        const constraint = sqliteConstraint(error);
        if (constraint === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new ConflictError('order_id_taken', `Order id ${String(order.id)} is already taken.`);
        }
        if (constraint === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new NotFoundError('account_not_found', `Account ${order.accountId} does not exist.`);
        }
        throw error;
      }
    },
    async listActive(accountId) {
      const rows = sql(`SELECT ${COLUMNS} FROM orders WHERE account_id = ? AND status <> 'cancelled' ORDER BY id`)
        .all(accountId) as OrderRow[];
      return rows.map(toOrder);
    },
    async listAll(accountId) {
      const rows = sql(`SELECT ${COLUMNS} FROM orders WHERE account_id = ? ORDER BY id`).all(accountId) as OrderRow[];
      return rows.map(toOrder);
    },
    async findById(id) {
      const row = sql(`SELECT ${COLUMNS} FROM orders WHERE id = ?`).get(id) as OrderRow | undefined;
      return row && toOrder(row);
    },
    async changeStatus({ id, accountId, from, to, at }) {
      const scope = accountId === undefined ? '' : ' AND account_id = ?';
      const scopeArgs = accountId === undefined ? [] : [accountId];
      const result = sql(`UPDATE orders SET status = ?, updated_at = ? WHERE id = ?${scope} AND status = ?`)
        .run(to, at, id, ...scopeArgs, from);
      if (result.changes > 0) return { changed: true };
      // The write decided; this read only explains the refusal. Orders never
      // return to a status they left, so what it sees is still "not `from`".
      const row = sql(`SELECT status FROM orders WHERE id = ?${scope}`).get(id, ...scopeArgs) as
        | { status: OrderStatus }
        | undefined;
      return row === undefined ? { changed: false } : { changed: false, current: row.status };
    },
    async listPage(query) {
      const { text, args } = pageSql(query);
      return (sql(text).all(...args) as OrderRow[]).map(toOrder);
    },
    async ordersVersion(accountId) {
      const row = sql('SELECT orders_version FROM accounts WHERE id = ?').get(accountId) as { orders_version: bigint } | undefined;
      return row?.orders_version ?? 0n;
    },
  };
}

/**
 * The keyset page query. Its text depends only on which filters are present
 * (and how many statuses), so the statement cache stays small.
 */
export function pageSql({ accountId, filter, afterId, limit }: OrderPageQuery): { text: string; args: unknown[] } {
  const where = ['account_id = ?'];
  const args: unknown[] = [accountId];
  if (afterId !== undefined) {
    where.push('id > ?');
    args.push(afterId);
  }
  if (filter.statuses !== undefined) {
    where.push(`status IN (${filter.statuses.map(() => '?').join(', ')})`);
    args.push(...filter.statuses);
  }
  if (filter.petId !== undefined) {
    where.push('pet_id = ?');
    args.push(filter.petId);
  }
  if (filter.complete !== undefined) {
    where.push('complete = ?');
    args.push(filter.complete ? 1 : 0);
  }
  // ship_date is normalised ISO 8601 UTC text of fixed width: text order is time order.
  if (filter.shipDateFrom !== undefined) {
    where.push('ship_date >= ?');
    args.push(filter.shipDateFrom);
  }
  if (filter.shipDateTo !== undefined) {
    where.push('ship_date < ?');
    args.push(filter.shipDateTo);
  }
  args.push(limit);
  return { text: `SELECT ${COLUMNS} FROM orders WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`, args };
}
