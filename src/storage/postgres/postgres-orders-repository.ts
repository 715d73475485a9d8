import { ConflictError, NotFoundError } from '../../errors/errors.js';
import {
  type ListedOrder,
  type NewOrder,
  type Order,
  type OrderPageQuery,
  type OrderStatus,
  type OrdersRepository,
  type StatusChange,
  type StatusChangeResult,
} from '../../orders/orders-repository.js';
import { changeRecords, orderCreatedRecords } from '../../orders/order-change-records.js';
import { insertAuditEntries } from './postgres-audit-repository.js';
import { insertEvents } from './postgres-events.js';
import { completeIdempotencyClaim } from './postgres-idempotency-repository.js';
import { IdempotencyClaimLost, type IdempotencyCompletion } from '../../idempotency/idempotency-repository.js';
import { FOREIGN_KEY_VIOLATION, isTransactionConflict, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { LARGEST_ID } from './postgres-order-ids.js';
import { importBatches, type Refusals } from './postgres-orders-import.js';
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
 * An id for an order created without one (see LARGEST_ID). Two concurrent
 * creates may pick the same; the primary key refuses the second, which then
 * tries again.
 */
const NEXT_ID = `(${LARGEST_ID} + 1)`;
const AUTO_ID_ATTEMPTS = 20;

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id, accountId: Number(row.account_id), complete: row.complete, status: row.status };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  return order;
}

const PAGE_COLUMNS = `id, pet_id, quantity, ${isoTimestamp('ship_date')}, complete`;

interface PageRow {
  id: bigint;
  pet_id: bigint | null;
  quantity: number | null;
  ship_date: string | null;
  complete: boolean;
}

const refusals: Refusals = {
  idTaken: (order) => new ConflictError('order_id_taken', `Order id ${String(order.id)} is already taken.`),
  unknownAccount: (order) => new NotFoundError('account_not_found', `Account ${order.accountId} does not exist.`),
};

function createError(order: NewOrder, error: unknown): unknown {
  const state = sqlState(error);
  if (state === UNIQUE_VIOLATION) return refusals.idTaken(order);
  if (state === FOREIGN_KEY_VIOLATION) return refusals.unknownAccount(order);
  return error;
}

export function createPostgresOrdersRepository(sql: Sql, transaction: Transaction): OrdersRepository {
  /** The order and its order.created event, in one transaction. */
  const insert = (order: NewOrder, completion?: IdempotencyCompletion<Order>): Promise<Order> =>
    transaction(async (tx) => {
      const created = await insertOrder(tx, order);
      const records = orderCreatedRecords(order, created);
      await insertEvents(tx, records.events);
      await insertAuditEntries(tx, records.audit);
      if (completion !== undefined && !(await completeIdempotencyClaim(tx, completion.claim, completion.respond(created)))) throw new IdempotencyClaimLost();
      return created;
    });

  async function insertOrder(tx: Sql, order: NewOrder): Promise<Order> {
    const [row] = await tx<OrderRow>(
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

  async function changeStatusMany(changes: readonly StatusChange[]): Promise<StatusChangeResult[]> {
    if (changes.length === 0) return [];
    // A lone change (a quiet server: one request per turn of the event
    // loop) is a plain conditional UPDATE, which PostgreSQL plans and runs
    // in about half the time of the group statement.
    const [lone] = changes.length === 1 ? changes : [];
    const split = lone === undefined ? rounds(changes) : [];
    // The changes and the events and audit entries of those that happened commit together.
    const apply = async (tx: Sql, results: StatusChangeResult[]) => {
      const records = changeRecords();
      if (lone !== undefined) results[0] = await changeOne(tx, lone, records);
      for (const round of split) await changeRound(tx, round, results, records);
      await insertEvents(tx, records.events);
      await insertAuditEntries(tx, records.audit);
    };
    for (let attempt = 1; ; attempt++) {
      const results = new Array<StatusChangeResult>(changes.length);
      try {
        // One transaction: the changes, then their events (the outbox).
        // The usual group names each order once: one statement. When an
        // order is named again (e.g. two cancels of it arrived together),
        // the rounds run in turn, each seeing the last. A later round names only orders the first one already
        // locked, but may lock an account the first did not (its change of
        // that order was refused, a later one is not), so a deadlock is
        // then possible: rolled back whole and run again like any other.
        await transaction((tx) => apply(tx, results));
        return results;
      } catch (error) {
        // PostgreSQL rolled the statement or transaction back: nothing of it
        // happened, so it is simply run again. After the last attempt the
        // conflict surfaces as a retryable 503.
        if (!isTransactionConflict(error) || attempt >= GROUP_ATTEMPTS) throw error;
      }
    }
  }

  return {
    async create(order, completion) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await insert(order, completion);
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
      const [result] = await changeStatusMany([change]);
      return result ?? { changed: false };
    },
    changeStatusMany,
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
      return transaction((tx, copyIn) => importBatches(tx, copyIn, batches, refusals));
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
