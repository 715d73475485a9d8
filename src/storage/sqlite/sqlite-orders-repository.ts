import type Database from 'better-sqlite3';
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
import { changeRecords, importedOrder, orderCreatedEvent, orderCreatedRecords, recordStatusChange, type ChangeRecords } from '../../orders/order-change-records.js';
import { insertAuditEntries } from './sqlite-audit-repository.js';
import { insertEvents } from './sqlite-events.js';
import { completeIdempotencyClaim } from './sqlite-idempotency-repository.js';
import { IdempotencyClaimLost, type IdempotencyCompletion } from '../../idempotency/idempotency-repository.js';
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

/**
 * A listing row as an array: about a third of the work of a row object. The
 * two small integers are read as REAL, so that only the int64 columns become
 * bigints.
 */
const PAGE_COLUMNS = 'id, pet_id, CAST(quantity AS REAL), ship_date, CAST(complete AS REAL)';
type PageRow = [id: bigint, petId: bigint | null, quantity: number | null, shipDate: string | null, complete: number][];
type PageRowWithStatus = [id: bigint, petId: bigint | null, quantity: number | null, shipDate: string | null, complete: number, status: OrderStatus][];

function toOrder(row: OrderRow): Order {
  const order: Order = { id: row.id, accountId: Number(row.account_id), complete: row.complete === 1n, status: row.status };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = Number(row.quantity);
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  return order;
}

const INSERT_HEAD = 'INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at) VALUES';
const INSERT_TUPLE = '(?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT = `${INSERT_HEAD} ${INSERT_TUPLE}`;
/** Rows per multi-row INSERT of an import (9 parameters each, far below SQLite's limit). */
const IMPORT_CHUNK = 50;
/** The import connection's page cache, in KiB. */
const IMPORT_CACHE_KIB = 256 * 1024;

function insertArgs(order: NewOrder) {
  return [
    order.id ?? null,
    order.accountId,
    order.petId ?? null,
    order.quantity ?? null,
    order.shipDate ?? null,
    order.complete ? 1 : 0,
    order.status,
    order.createdAt,
    order.createdAt,
  ] as const;
}

function createError(order: NewOrder, error: unknown): unknown {
  const constraint = sqliteConstraint(error);
  if (constraint === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    return new ConflictError('order_id_taken', `Order id ${String(order.id)} is already taken.`);
  }
  if (constraint === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new NotFoundError('account_not_found', `Account ${order.accountId} does not exist.`);
  }
  return error;
}

/**
 * @param openImportConnection opens a separate connection for importOrders,
 * whose transaction stays open across awaits and so must not be shared.
 */
export function createSqliteOrdersRepository(db: Database.Database, openImportConnection: () => Database.Database): OrdersRepository {
  const sql = statementCache(db);

  /** One conditional write; a change that happened adds its event and audit entry to `records`, to be written in the same transaction. */
  function changeOne(change: StatusChange, records: ChangeRecords): StatusChangeResult {
    const { id, accountId, from, to, at } = change;
    const scope = accountId === undefined ? '' : ' AND account_id = ?';
    const scopeArgs = accountId === undefined ? [] : [accountId];
    const changed = sql(`UPDATE orders SET status = ?, updated_at = ? WHERE id = ?${scope} AND status = ? RETURNING ${COLUMNS}`)
      .get(to, at, id, ...scopeArgs, from) as OrderRow | undefined;
    if (changed !== undefined) {
      recordStatusChange(records, change, toOrder(changed));
      return { changed: true };
    }
    // The write decided; this read only explains the refusal. Orders never
    // return to a status they left, so what it sees is still "not `from`".
    const row = sql(`SELECT status FROM orders WHERE id = ?${scope}`).get(id, ...scopeArgs) as
      | { status: OrderStatus }
      | undefined;
    return row === undefined ? { changed: false } : { changed: false, current: row.status };
  }

  const page = `SELECT ${PAGE_COLUMNS} FROM orders WHERE account_id = ? AND status <> 'cancelled'`;
  // Prepared on first use: the tables may not exist before migrate().
  const firstPage = () => sql(`${page} ORDER BY id LIMIT ?`).raw(true);
  const nextPage = () => sql(`${page} AND id > ? ORDER BY id LIMIT ?`).raw(true);

  // IMMEDIATE takes the write lock up front, so a batch never fails halfway
  // on a lock upgrade; the busy timeout queues it behind other writers.
  const changeMany = db.transaction((changes: readonly StatusChange[]) => {
    const records = changeRecords();
    const results = changes.map((change) => changeOne(change, records));
    insertEvents(sql, records.events);
    insertAuditEntries(sql, records.audit);
    return results;
  });
  const createOne = db.transaction((order: NewOrder, completion?: IdempotencyCompletion<Order>): Order => {
    const created = toOrder(sql(`${INSERT} RETURNING ${COLUMNS}`).get(...insertArgs(order)) as OrderRow);
    const records = orderCreatedRecords(order, created);
    insertEvents(sql, records.events);
    insertAuditEntries(sql, records.audit);
    if (completion !== undefined && !completeIdempotencyClaim(sql, completion.claim, completion.respond(created))) throw new IdempotencyClaimLost();
    return created;
  });

  return {
    async create(order, completion) {
      try {
        return createOne.immediate(order, completion);
      } catch (error) {
        throw createError(order, error);
      }
    },
    async listAll(accountId) {
      const rows = sql(`SELECT ${COLUMNS} FROM orders WHERE account_id = ? ORDER BY id`).all(accountId) as OrderRow[];
      return rows.map(toOrder);
    },
    async findById(id) {
      const row = sql(`SELECT ${COLUMNS} FROM orders WHERE id = ?`).get(id) as OrderRow | undefined;
      return row && toOrder(row);
    },
    async changeStatus(change) {
      return changeMany.immediate([change])[0] ?? { changed: false };
    },
    async changeStatusMany(changes) {
      if (changes.length === 0) return [];
      return changeMany.immediate(changes);
    },
    async listActivePage(accountId, afterId, limit) {
      const rows = (afterId === undefined ? firstPage().all(accountId, limit) : nextPage().all(accountId, afterId, limit)) as PageRow;
      const orders: ListedOrder[] = [];
      for (const [id, petId, quantity, shipDate, complete] of rows) {
        const order: ListedOrder = { id, complete: complete === 1 };
        if (petId !== null) order.petId = petId;
        if (quantity !== null) order.quantity = quantity;
        if (shipDate !== null) order.shipDate = shipDate;
        orders.push(order);
      }
      return orders;
    },
    async importOrders(batches) {
      const connection = openImportConnection();
      try {
        // Index pages touched again and again stay in memory until COMMIT
        // instead of spilling to the WAL over and over.
        connection.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
        const importSql = statementCache(connection);
        // RETURNING id: an order without one gets it from the database, and its event must name it.
        const insertOne = connection.prepare(`${INSERT} RETURNING id`).pluck();
        // Many rows per statement: about half the cost per row of one each.
        const insertChunk = connection.prepare(`${INSERT_HEAD} ${Array.from({ length: IMPORT_CHUNK }, () => INSERT_TUPLE).join(', ')} RETURNING id`).pluck();
        /** The ids a chunk got; RETURNING yields them in insertion order, which the given ids confirm. */
        const chunkIds = (chunk: readonly NewOrder[]): bigint[] => {
          const ids = insertChunk.all(chunk.flatMap(insertArgs)) as bigint[];
          if (ids.length !== chunk.length || chunk.some((order, index) => order.id !== undefined && order.id !== ids[index])) {
            throw new Error('an import chunk returned its ids out of order');
          }
          return ids;
        };
        connection.exec('BEGIN IMMEDIATE');
        let position = 0;
        try {
          for await (const { orders: batch, lines } of batches) {
            connection.exec('SAVEPOINT import_batch');
            const ids: bigint[] = [];
            try {
              let start = 0;
              for (; start + IMPORT_CHUNK <= batch.length; start += IMPORT_CHUNK) ids.push(...chunkIds(batch.slice(start, start + IMPORT_CHUNK)));
              for (const order of batch.slice(start)) ids.push(insertOne.get(...insertArgs(order)) as bigint);
            } catch (error) {
              // Anything but a refused row (a full disk, an I/O error) ends the import as it is.
              if (sqliteConstraint(error) === undefined) throw error;
              // Replay the batch one row at a time to name the refused order.
              connection.exec('ROLLBACK TO import_batch');
              ids.length = 0;
              for (const [index, order] of batch.entries()) {
                try {
                  ids.push(insertOne.get(...insertArgs(order)) as bigint);
                } catch (error) {
                  const reason = createError(order, error);
                  throw reason instanceof Error ? new ImportRejectedError(lines[index] ?? position + index + 1, reason) : reason;
                }
              }
            }
            // One order.created per order, in the batch's transaction.
            insertEvents(importSql, batch.map((order, index) => orderCreatedEvent(importedOrder(order, ids[index] ?? 0n), order.createdAt)));
            connection.exec('RELEASE import_batch');
            position += batch.length;
          }
          connection.exec('COMMIT');
        } catch (error) {
          if (connection.inTransaction) connection.exec('ROLLBACK');
          throw error;
        }
        return { imported: position };
      } finally {
        connection.close();
      }
    },
    async listPage(query) {
      const { text, args } = pageSql(query);
      const orders: Order[] = [];
      for (const [id, petId, quantity, shipDate, complete, status] of sql(text).raw(true).all(...args) as PageRowWithStatus) {
        const order: Order = { id, accountId: query.accountId, complete: complete === 1, status };
        if (petId !== null) order.petId = petId;
        if (quantity !== null) order.quantity = quantity;
        if (shipDate !== null) order.shipDate = shipDate;
        orders.push(order);
      }
      return orders;
    },
    async ordersVersion(accountId) {
      const version = sql('SELECT orders_version FROM accounts WHERE id = ?').pluck().get(accountId) as bigint | undefined;
      return version ?? 0n;
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
  return { text: `SELECT ${PAGE_COLUMNS}, status FROM orders WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`, args };
}
