import type { Order, OrderStatus, StatusChange, StatusChangeResult } from '../../orders/orders-repository.js';
import { recordStatusChange, type ChangeRecords } from '../../orders/order-change-records.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

/** The columns of an order after a change, as its event reports it. */
interface ChangedRow {
  account_id: bigint;
  pet_id: bigint | null;
  quantity: number | null;
  ship_date: string | null;
  complete: boolean;
}

/** Adds the event and audit entry of a change that happened to `records`, to be written in the same transaction. */
function addRecords(records: ChangeRecords, change: StatusChange, row: ChangedRow): void {
  const order: Order = { id: change.id, accountId: Number(row.account_id), complete: row.complete, status: change.to };
  if (row.pet_id !== null) order.petId = row.pet_id;
  if (row.quantity !== null) order.quantity = row.quantity;
  if (row.ship_date !== null) order.shipDate = row.ship_date;
  recordStatusChange(records, change, order);
}

/**
 * The conditional status change. One conditional UPDATE decides: of any
 * number of concurrent callers, exactly one matches the row while it is
 * still in `from`. The SELECT after a refusal only explains it (orders never
 * return to a status they left, so what it sees is still "not `from`").
 */
export async function changeOne(sql: Sql, change: StatusChange, records: ChangeRecords): Promise<StatusChangeResult> {
  const { id, accountId, from, to, at } = change;
  const scoped = accountId !== undefined;
  const [updated] = await sql<ChangedRow>(
    `UPDATE orders SET status = $1, updated_at = $2 WHERE id = $3 AND status = $4${scoped ? ' AND account_id = $5' : ''}
     RETURNING account_id, pet_id, quantity, ${isoTimestamp('ship_date')}, complete`,
    scoped ? [to, at, id, from, accountId] : [to, at, id, from],
  );
  if (updated !== undefined) {
    addRecords(records, change, updated);
    return { changed: true };
  }
  const [row] = await sql<{ status: OrderStatus }>(
    `SELECT status FROM orders WHERE id = $1${scoped ? ' AND account_id = $2' : ''}`,
    scoped ? [id, accountId] : [id],
  );
  return row === undefined ? { changed: false } : { changed: false, current: row.status };
}

/** Runs of a status-change group that a deadlock may roll back before it gives up. */
export const GROUP_ATTEMPTS = 3;

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
  RETURNING o.id, o.account_id, o.pet_id, o.quantity, ${isoTimestamp('o.ship_date').replace(/ AS .*$/, ' AS ship_date')}, o.complete
)
SELECT c.id IS NOT NULL AS changed, CASE WHEN u.account_id IS NULL OR l.account_id = u.account_id THEN l.status END AS current,
  c.account_id, c.pet_id, c.quantity, c.ship_date, c.complete
FROM u LEFT JOIN locked l ON l.id = u.id LEFT JOIN changed c ON c.id = u.id
ORDER BY u.position`;

export interface Numbered {
  change: StatusChange;
  /** Its position in the group. */
  index: number;
}

/**
 * Runs one round, writing each change's result at its position in `results`
 * and the records (events, audit entries) of the changes that happened to `records`.
 */
export async function changeRound(sql: Sql, round: readonly Numbered[], results: StatusChangeResult[], records: ChangeRecords): Promise<void> {
  const rows = await sql<{ changed: boolean; current: OrderStatus | null } & ChangedRow>(CHANGE_ROUND, [
    round.map(({ change }) => String(change.id)),
    round.map(({ change }) => change.accountId ?? null),
    round.map(({ change }) => change.from),
    round.map(({ change }) => change.to),
    round.map(({ change }) => change.at),
  ]);
  for (const [i, { change, index }] of round.entries()) {
    const row = rows[i];
    if (row === undefined) throw new Error(`a round of ${round.length} status changes got ${rows.length} results`);
    if (row.changed) addRecords(records, change, row);
    results[index] = row.changed ? { changed: true } : row.current === null ? { changed: false } : { changed: false, current: row.current };
  }
}

/**
 * Splits a group into rounds with no order id twice: a change goes to the
 * round after that of the previous change of its order. Changes of
 * different orders do not affect one another, so running the rounds in
 * turn decides each change as running the whole group in array order would.
 */
export function rounds(changes: readonly StatusChange[]): Numbered[][] {
  const result: Numbered[][] = [];
  const seen = new Map<bigint, number>();
  for (const [index, change] of changes.entries()) {
    const round = seen.get(change.id) ?? 0;
    seen.set(change.id, round + 1);
    (result[round] ??= []).push({ change, index });
  }
  return result;
}
