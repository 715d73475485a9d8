import type { NewOrder } from '../../orders/orders-repository.js';
import { INT64_MAX } from '../../shared/int64.js';

/**
 * The largest order id below int64's maximum (0 when there is none). An order
 * created without an id takes one more, like SQLite's rowid choice, so there
 * is no sequence to drift behind explicitly given ids.
 */
export const LARGEST_ID = `(SELECT COALESCE(max(id), 0) FROM orders WHERE id < ${INT64_MAX})`;

/**
 * The ids that inserting `orders` one by one, in order, would give them when
 * the largest id below int64's maximum is `largest` before the first: a given
 * id is kept, and each order without one takes the largest so far plus one
 * (given ids and ids placed earlier in the run included; int64's maximum not,
 * as LARGEST_ID does not count it). `largest` comes back as it is after them.
 */
export function placeIds(orders: readonly NewOrder[], largest: bigint): { ids: bigint[]; largest: bigint } {
  let current = largest;
  const ids = orders.map(({ id }) => {
    if (id !== undefined) {
      if (id < INT64_MAX && id > current) current = id;
      return id;
    }
    // current < INT64_MAX throughout, so this never passes int64's maximum.
    const placed = current + 1n;
    if (placed < INT64_MAX) current = placed;
    return placed;
  });
  return { ids, largest: current };
}
