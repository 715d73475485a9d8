import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { OrderStatus } from '../../../src/orders/orders-repository.js';
import { createTestApp } from '../../support/app.js';
import { exactIds, walk } from '../../support/pages.js';
import { httpBackends } from '../../support/storage.js';

/** A few values of each field, so that random filters often match something. */
const PET_IDS = [1n, 2n, 9007199254740993n, 9223372036854775807n, -5n] as const;
const INSTANTS = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-06-15T12:30:00.000Z', '2027-01-01T00:00:00.000Z'] as const;
const STATUSES: readonly OrderStatus[] = ['pending', 'shipped', 'cancelled'];

interface Row {
  petId?: bigint;
  shipDate?: string;
  complete: boolean;
  status: OrderStatus;
}

interface Query {
  statuses?: OrderStatus[];
  petId?: bigint;
  complete?: boolean;
  from?: string;
  to?: string;
  limit?: number;
}

const rowArbitrary: fc.Arbitrary<Row> = fc.record(
  {
    petId: fc.constantFrom(...PET_IDS),
    shipDate: fc.constantFrom(...INSTANTS),
    complete: fc.boolean(),
    status: fc.constantFrom(...STATUSES),
  },
  { requiredKeys: ['complete', 'status'] },
);

const queryArbitrary: fc.Arbitrary<Query> = fc
  .record(
    {
      statuses: fc.subarray([...STATUSES], { minLength: 1 }),
      petId: fc.constantFrom(...PET_IDS, 3n),
      complete: fc.boolean(),
      from: fc.constantFrom(...INSTANTS),
      to: fc.constantFrom(...INSTANTS),
      limit: fc.integer({ min: 1, max: 7 }),
    },
    { requiredKeys: [] },
  )
  .filter((q) => q.from === undefined || q.to === undefined || q.from <= q.to);

/** The plain in-memory filter the paged listing must agree with. */
function matches(row: Row, query: Query): boolean {
  if (query.statuses !== undefined && !query.statuses.includes(row.status)) return false;
  if (query.petId !== undefined && row.petId !== query.petId) return false;
  if (query.complete !== undefined && row.complete !== query.complete) return false;
  if (query.from !== undefined && (row.shipDate === undefined || row.shipDate < query.from)) return false;
  if (query.to !== undefined && (row.shipDate === undefined || row.shipDate >= query.to)) return false;
  return true;
}

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const status of query.statuses ?? []) params.append('status', status);
  if (query.petId !== undefined) params.set('petId', query.petId.toString());
  if (query.complete !== undefined) params.set('complete', String(query.complete));
  if (query.from !== undefined) params.set('shipDateFrom', query.from);
  if (query.to !== undefined) params.set('shipDateTo', query.to);
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  return params.toString();
}

for (const backend of httpBackends()) {
  describe(`v2 paging property (${backend.name})`, () => {
    test('when walking every page of random filters over random orders, then exactly the in-memory filter result comes back, in id order', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      // One database for the whole run; each data set is a new account among
      // the previous ones, which must never show through.
      let run = 0n;
      await fc.assert(
        fc.asyncProperty(
          fc.array(rowArbitrary, { maxLength: 25 }),
          fc.array(queryArbitrary, { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 1, max: 40 }),
          async (rows, queries, idGap) => {
            const { account, auth } = await tenant();
            run++;
            const stored: (Row & { id: bigint })[] = [];
            for (const [i, row] of rows.entries()) {
              // Sparse ids, inserted out of id order, every third beyond 2^53.
              const id = (i % 3 === 0 ? 4_000_000_000_000_000_000n : 0n) + run * 10_000n + BigInt(i * idGap);
              await services.orderOperations.createOrder({ accountId: account.id, id, petId: row.petId, quantity: 1, shipDate: row.shipDate, complete: row.complete });
              if (row.status === 'shipped') await services.orderOperations.shipOrder(id);
              if (row.status === 'cancelled') await services.orders.cancelOrder(account.id, id);
              stored.push({ ...row, id });
            }
            stored.sort((a, b) => (a.id < b.id ? -1 : 1));
            for (const query of queries) {
              const expected = stored.filter((row) => matches(row, query)).map((row) => row.id.toString());
              const { pages, bodies } = await walk(app, auth, `/v2/store/orders?${queryString(query)}`);
              const limit = query.limit ?? 50;
              pages.forEach((page, i) => {
                if (i < pages.length - 1) assert.equal(page.data.length, limit, 'only the last page may be short');
                else assert.ok(page.data.length <= limit);
              });
              // Ids compared as exact text: JSON.parse would round those beyond 2^53.
              assert.deepEqual(bodies.flatMap(exactIds), expected, queryString(query));
              assert.deepEqual(
                pages.flatMap((page) => page.data.map((order) => order.status)),
                stored.filter((row) => matches(row, query)).map((row) => row.status),
              );
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
