import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createBatcher } from '../shared/batcher.js';
import { digestOf } from '../shared/digest.js';
import { Lru } from '../shared/lru.js';
import type { ListedOrder, OrdersRepository } from './orders-repository.js';

/** The v1 listing as bytes: small listings whole, large ones as a stream. */
export type ListingBody = Buffer | Readable;

export interface ListingOptions {
  /**
   * Orders fetched first. A listing that fits is serialized whole and cached;
   * one that does not is streamed.
   */
  wholeLimit?: number;
  /** Orders per streamed chunk (~90 bytes each): bounds both memory and how long one chunk blocks the event loop. */
  streamPage?: number;
  /** Total bytes of serialized listings kept, least recently used evicted first. */
  cacheBytes?: number;
}

/**
 * One Order record exactly as the v1 response schema serializes it: the five
 * documented fields in schema order, absent ones omitted, int64 with every
 * digit.
 */
export function serializeOrder(order: ListedOrder): string {
  let json = `{"id":${order.id}`;
  if (order.petId !== undefined) json += `,"petId":${order.petId}`;
  if (order.quantity !== undefined) json += `,"quantity":${order.quantity}`;
  if (order.shipDate !== undefined) json += `,"shipDate":${JSON.stringify(order.shipDate)}`;
  return `${json},"complete":${order.complete}}`;
}

function serializeOrders(orders: readonly ListedOrder[]): string {
  let json = '';
  for (let i = 0; i < orders.length; i++) {
    const order = orders[i];
    if (order !== undefined) json += i === 0 ? serializeOrder(order) : `,${serializeOrder(order)}`;
  }
  return json;
}

/** Version reads in flight at once; few, so that a burst cannot take every pooled connection. */
const VERSION_READS_IN_FLIGHT = 4;

/** An account's orders version, as read by a request that has arrived. */
export type ReadVersion = (accountId: number) => Promise<bigint>;

/**
 * Listing requests (v1 and v2) that arrive together read each account's
 * version once: under load that is one read for many requests, and each read
 * still starts after every request it answers arrived, so none misses an
 * earlier commit. Create one per storage and share it.
 */
export function createVersionReads(ordersRepository: Pick<OrdersRepository, 'ordersVersion'>): ReadVersion {
  return createBatcher<number, bigint>(
    async (accountIds) => {
      const unique = [...new Set(accountIds)];
      const versions = new Map(await Promise.all(unique.map(async (id) => [id, await ordersRepository.ordersVersion(id)] as const)));
      return accountIds.map((id) => versions.get(id) ?? 0n);
    },
    // Reads may overlap: requests that arrive while one read is in flight
    // (a database round trip away) start their own instead of idling.
    { maxInFlight: VERSION_READS_IN_FLIGHT },
  );
}

/** Bump when the serialized v1 listing changes shape, so that older ETags stop matching. */
const V1_REPRESENTATION_REVISION = 1;

/** The v1 listing of one account at one version of its orders. */
export interface OpenedListing {
  /** Changes whenever the listing could: the strong ETag's opaque part. */
  readonly validator: string;
  /** The serialized listing when it is already in memory (cached at this version). */
  readonly cached: Buffer | undefined;
  /** The serialized listing: bytes, or a stream for a large one. */
  body(): Promise<ListingBody>;
}

/**
 * Serves the v1 listing near the cost of sending precomputed bytes. An
 * account's serialized listing is cached with the account's orders version
 * (a counter the database bumps in the same transaction as every write to
 * those orders) read before the query that built it, and reused only while
 * that version is unchanged: any commit, by this process or any other sharing
 * the database, makes the very next request rebuild it. Listings larger than
 * `wholeLimit` are never held in memory: they are read page by page (an id
 * range each) and streamed, yielding to the event loop between pages so that
 * other requests keep flowing.
 */
export function createOrdersListing(
  ordersRepository: Pick<OrdersRepository, 'listActivePage'>,
  readVersion: ReadVersion,
  { wholeLimit = 1000, streamPage = 4000, cacheBytes = 32 * 1024 * 1024 }: ListingOptions = {},
) {
  const cache = new Lru<number, { version: bigint; validator: string; body: Buffer }>(cacheBytes, (entry) => entry.body.length);

  async function* stream(accountId: number, first: ListedOrder[]): AsyncGenerator<Buffer> {
    let page = first;
    let separator = '[';
    while (page.length > 0) {
      yield Buffer.from(separator + serializeOrders(page));
      separator = ',';
      const last = page[page.length - 1];
      if (last === undefined) break;
      await nextTurn();
      page = await ordersRepository.listActivePage(accountId, last.id, streamPage);
    }
    yield Buffer.from(separator === '[' ? '[]' : ']');
  }

  async function build(accountId: number, version: bigint, validator: string): Promise<ListingBody> {
    const first = await ordersRepository.listActivePage(accountId, undefined, wholeLimit + 1);
    if (first.length <= wholeLimit) {
      const body = Buffer.from(`[${serializeOrders(first)}]`);
      // Labelled with the version read before the rows: a write in between
      // leaves the label older than the body, so the next request rebuilds.
      cache.set(accountId, { version, validator, body });
      return body;
    }
    cache.delete(accountId);
    return Readable.from(stream(accountId, first), { objectMode: false });
  }

  return {
    async open(accountId: number): Promise<OpenedListing> {
      const version = await readVersion(accountId);
      const cached = cache.get(accountId);
      if (cached !== undefined && cached.version === version) {
        return { validator: cached.validator, cached: cached.body, body: () => Promise.resolve(cached.body) };
      }
      const validator = digestOf(['orders-v1', V1_REPRESENTATION_REVISION, accountId, version]);
      return { validator, cached: undefined, body: () => build(accountId, version, validator) };
    },
  };
}

export type OrdersListing = ReturnType<typeof createOrdersListing>;
