import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Lru } from '../../shared/lru.js';
import type { ListedOrder } from '../orders-repository.js';
import type { ActiveOrdersListing, OrdersService } from '../v1/orders-service.js';
import { serializeOrders } from './orders-serializers.js';

const COMMA = 0x2c;
const CLOSE_BRACKET = Buffer.from(']');

/**
 * One page of a streamed array: its serialization without the closing bracket
 * (sent once, at the end), and with a comma in place of the opening one after
 * the first page. Done in the bytes, with no copy of the page's JSON.
 */
function arrayPart(orders: ListedOrder[], first: boolean): Buffer {
  const json = Buffer.from(serializeOrders(orders));
  if (!first) json[0] = COMMA;
  return json.subarray(0, json.length - 1);
}

export interface ListingOptions {
  /**
   * Orders a v1 listing may have to be serialized whole and kept; a larger one
   * is streamed page by page and never held in memory.
   */
  wholeLimit?: number;
  /** Orders per streamed chunk (~90 bytes each): bounds both memory and how long one chunk blocks the event loop. */
  streamPage?: number;
  /** Bytes of serialized listings kept, v1 and v2 together, least recently used evicted first. */
  cacheBytes?: number;
}

/** The v1 listing as the route and the fast lane answer it. */
export interface OpenedListing {
  /** Changes whenever the listing could: the strong ETag's opaque part. */
  readonly validator: string;
  /** The serialized listing when it is already in memory at this validator. */
  readonly cached: Buffer | undefined;
  /** The serialized listing: kept bytes, or built (and kept), or a stream for a large one. */
  body(): Promise<Buffer | Readable>;
}

/** A serialized v2 page and its Link header, as kept. */
export interface SerializedPage {
  readonly body: Buffer;
  readonly link: string | undefined;
}

interface Kept extends SerializedPage {
  readonly key: string;
  /** A v1 listing's answer, made once: a cached answer allocates nothing per request. */
  readonly opened?: OpenedListing;
}

/**
 * The serialized listings of one host, v1 and v2 alike, kept under the
 * account, the listing's validator and the query: the validator changes with
 * every write to the account's orders (by any process sharing the database),
 * so whatever is found under it is current, and an unchanged listing costs no
 * query and no serialization. Superseded entries are never read again and
 * age out of the least-recently-used budget.
 */
export function createListingResponses(
  ordersService: Pick<OrdersService, 'openListing' | 'activeOrders'>,
  /** Told of each cache lookup whose answer is used: found (true) or built (false). */
  observeCache: (hit: boolean) => void,
  { wholeLimit = 1000, streamPage = 4000, cacheBytes = 48 * 1024 * 1024 }: ListingOptions = {},
) {
  // The key counts too: an empty page under a long query is mostly key.
  const cache = new Lru<string, Kept>(cacheBytes, (kept) => kept.key.length + kept.body.length + (kept.link?.length ?? 0));
  const keyOf = (accountId: number, validator: string, query: string) => `${accountId}\n${validator}\n${query}`;
  // The orders service hands out one listing object per account and version: its key is built (and hashed) once.
  const v1Keys = new WeakMap<ActiveOrdersListing, string>();
  const v1KeyOf = (listing: ActiveOrdersListing): string => {
    let key = v1Keys.get(listing);
    if (key === undefined) {
      key = keyOf(listing.accountId, listing.validator, '');
      v1Keys.set(listing, key);
    }
    return key;
  };

  async function* stream(first: ListedOrder[], pages: AsyncGenerator<ListedOrder[]>): AsyncGenerator<Buffer> {
    yield arrayPart(first, true);
    for (;;) {
      // Other requests keep flowing between pages.
      await nextTurn();
      const page = await pages.next();
      if (page.done === true) break;
      yield arrayPart(page.value, false);
    }
    yield CLOSE_BRACKET;
  }

  async function build(listing: ActiveOrdersListing, key: string): Promise<Buffer | Readable> {
    observeCache(false);
    const pages = ordersService.activeOrders(listing.accountId, { first: wholeLimit + 1, next: streamPage });
    const first = await pages.next();
    const orders = first.done === true ? [] : first.value;
    if (orders.length > wholeLimit) return Readable.from(stream(orders, pages), { objectMode: false });
    await pages.return(undefined);
    const body = Buffer.from(serializeOrders(orders));
    const bytes = Promise.resolve(body);
    cache.set(key, { key, body, link: undefined, opened: { validator: listing.validator, cached: body, body: () => bytes } });
    return body;
  }

  return {
    /** The v1 listing of the account: its validator at once, its body from memory or built on demand. */
    async openV1(accountId: number): Promise<OpenedListing> {
      const listing = await ordersService.openListing(accountId);
      const key = v1KeyOf(listing);
      const kept = cache.get(key)?.opened;
      if (kept !== undefined) {
        observeCache(true);
        return kept;
      }
      return { validator: listing.validator, cached: undefined, body: () => build(listing, key) };
    },

    /** A v2 page under its listing's validator and the exact query (which shapes the Link): kept, or read and kept. */
    async v2Page(accountId: number, validator: string, query: string, read: () => Promise<SerializedPage>): Promise<SerializedPage> {
      const key = keyOf(accountId, validator, query);
      const kept = cache.get(key);
      observeCache(kept !== undefined);
      if (kept !== undefined) return kept;
      const page = await read();
      cache.set(key, { key, ...page });
      return page;
    },
  };
}

export type ListingResponses = ReturnType<typeof createListingResponses>;
