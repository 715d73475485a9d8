import type { OrderFilter, OrderPageQuery, OrderStatus } from '../../src/orders/orders-repository.js';

/**
 * Every shape of v2 page query the adapters can build: each subset of the
 * filters, 1 to 3 statuses, first page or a later one.
 */
export function everyPageQueryShape(): OrderPageQuery[] {
  const statusChoices: (OrderStatus[] | undefined)[] = [undefined, ['pending'], ['cancelled'], ['pending', 'shipped'], ['pending', 'shipped', 'cancelled']];
  const queries: OrderPageQuery[] = [];
  for (const statuses of statusChoices) {
    for (let mask = 0; mask < 32; mask++) {
      const filter: OrderFilter = {};
      if (statuses !== undefined) filter.statuses = statuses;
      if (mask & 1) filter.petId = 7n;
      if (mask & 2) filter.complete = true;
      if (mask & 4) filter.shipDateFrom = '2026-03-01T00:00:00.000Z';
      if (mask & 8) filter.shipDateTo = '2026-06-01T00:00:00.000Z';
      queries.push({ accountId: 2, filter, afterId: mask & 16 ? 1000n : undefined, limit: 51 });
    }
  }
  return queries;
}

export function describeQuery({ filter, afterId }: OrderPageQuery): string {
  const parts = Object.entries(filter).map(([key, value]) => (Array.isArray(value) ? `${key}=${value.join('+')}` : key));
  if (afterId !== undefined) parts.push('cursor');
  return parts.length === 0 ? '(no filter)' : parts.join(', ');
}
