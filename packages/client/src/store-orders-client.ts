import createClient from 'openapi-fetch';
import { parseJsonExact, stringifyJsonExact } from './exact-json.js';
import type { components, paths } from './openapi-types.js';
import type { components as componentsV2, operations as operationsV2, paths as pathsV2 } from './openapi-v2-types.js';

export type Order = components['schemas']['Order'];
export type Pet = components['schemas']['Pet'];
export type ErrorRecord = components['schemas']['Error'];
export type ErrorCode = ErrorRecord['code'];
/** A v2 (beta) order: v1's fields plus `status`. */
export type OrderV2 = componentsV2['schemas']['OrderV2'];
export type OrderStatus = OrderV2['status'];
/** One page of the v2 (beta) listing. */
export type OrdersPageV2 = componentsV2['schemas']['OrdersPage'];

/** A v2 (beta) order to place: petId is an exact bigint; shipDate a Date or ISO 8601 text with a zone. */
export type PlaceOrderV2Input = Omit<componentsV2['schemas']['PlaceOrderRequest'], 'shipDate'> & { shipDate?: Date | string };

export interface PlaceOrderV2Options {
  /**
   * Sent as Idempotency-Key (1 to 255 printable ASCII characters; a UUID works
   * well): a retry with the same key and input gets the first answer instead
   * of placing a second order.
   */
  idempotencyKey?: string;
}

/** A placed order, and whether the answer was the replay of an earlier request with the same Idempotency-Key. */
export interface PlacedOrderV2 {
  order: OrderV2;
  replayed: boolean;
}

/** The v2 (beta) listing's filters; all optional, combined with AND. */
export interface OrdersV2Filter {
  /** Orders in one of these statuses (default: any). */
  status?: readonly OrderStatus[];
  petId?: bigint;
  complete?: boolean;
  /** Ship date at or after this instant (a Date, or ISO 8601 text with a zone). */
  shipDateFrom?: Date | string;
  /** Ship date strictly before this instant: the range is half-open. */
  shipDateTo?: Date | string;
}

export interface ListOrdersV2Options extends OrdersV2Filter {
  /** 1 to 500 (server default 50). */
  limit?: number;
  /** The nextCursor of the previous page, sent with the same filters. */
  cursor?: string;
}

/** One request the account's keys made, as the v2 (beta) request logs show it (ids as bigint). */
export type RequestLog = componentsV2['schemas']['RequestLog'];
/** One page of the v2 (beta) request logs, newest first. */
export type RequestLogsPage = componentsV2['schemas']['RequestLogsPage'];

/** The v2 (beta) request logs' filters and page; all optional, combined with AND. */
export interface ListRequestLogsOptions {
  /** One status (`'409'`) or a class (`'4xx'`). */
  status?: string;
  method?: string;
  /** The path starts with this text, e.g. `/v1/store/orders`. */
  path?: string;
  requestId?: string;
  keyId?: bigint;
  /** At or after this instant (a Date, or ISO 8601 text with a zone). */
  since?: Date | string;
  /** Strictly before this instant: the range is half-open. */
  until?: Date | string;
  /** 1 to 500 (server default 50). */
  limit?: number;
  /** The nextCursor of the previous page, sent with the same filters. */
  cursor?: string;
}

/** The fields the contracts (v1 and v2) type as int64; they are parsed as bigint. */
const INT64_FIELDS: ReadonlySet<string> = new Set(['id', 'petId']);

/** A non-2xx answer: the API's Error record, plus the request id to quote to support. */
export class StoreOrdersApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly requestId: string | undefined;

  constructor(record: ErrorRecord, requestId: string | undefined) {
    super(record.message);
    this.name = 'StoreOrdersApiError';
    this.code = record.code;
    this.status = record.status;
    this.requestId = requestId ?? undefined;
  }
}

export interface StoreOrdersClientOptions {
  /** The API base including /v1, e.g. https://store.example.com/v1. */
  baseUrl: string;
  /**
   * The v2 (beta) API base, e.g. https://store.example.com/v2. Default:
   * baseUrl with its final /v1 replaced by /v2; required for the v2 methods
   * when baseUrl does not end in /v1.
   */
  v2BaseUrl?: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A typed client for the Store Orders API, v1 and v2 (beta). Identifiers
 * (`id`, `petId`) are bigint: they are int64 and a JS number cannot hold all
 * of them. Every non-2xx response throws StoreOrdersApiError.
 */
export function createStoreOrdersClient({ baseUrl, v2BaseUrl, apiKey, fetch }: StoreOrdersClientOptions) {
  const base = baseUrl.replace(/\/+$/, '');
  const common = {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
    ...(fetch === undefined ? {} : { fetch }),
  };
  const api = createClient<paths>({ baseUrl: base, ...common });
  const v2Base = v2BaseUrl?.replace(/\/+$/, '') ?? (base.endsWith('/v1') ? `${base.slice(0, -'/v1'.length)}/v2` : undefined);
  const apiV2 = v2Base === undefined ? undefined : createClient<pathsV2>({ baseUrl: v2Base, ...common });
  const v2 = () => {
    if (apiV2 === undefined) throw new Error('The v2 methods need v2BaseUrl: baseUrl does not end in /v1');
    return apiV2;
  };

  const fail = (error: unknown, response: Response): never => {
    const record = typeof error === 'string' ? safeParse(error) : error;
    if (isErrorRecord(record)) throw new StoreOrdersApiError(record, response.headers.get('x-request-id') ?? undefined);
    throw new Error(`Unexpected HTTP ${response.status} from the Store Orders API`);
  };

  const listOrdersV2 = async (options: ListOrdersV2Options = {}): Promise<OrdersPageV2> => {
    const { data, error, response } = await v2().GET('/store/orders', { params: { query: listQuery(options) }, parseAs: 'text' });
    if (!response.ok || data === undefined) return fail(error, response);
    return parseJsonExact(data, INT64_FIELDS) as OrdersPageV2;
  };

  return {
    /** Every order of the account that is not cancelled, by id. */
    async listOrders(): Promise<Order[]> {
      const { data, error, response } = await api.GET('/store/orders', { parseAs: 'text' });
      if (!response.ok || data === undefined) return fail(error, response);
      return parseJsonExact(data, INT64_FIELDS) as Order[];
    },

    /** Cancels a pending order; throws `order_already_shipped` (409) or `order_not_found` (404). */
    async cancelOrder(orderId: bigint): Promise<void> {
      const { error, response } = await api.DELETE('/store/orders/{orderId}', { params: { path: { orderId } }, parseAs: 'text' });
      if (!response.ok) fail(error, response);
    },

    /**
     * Finds a pet by id.
     * @deprecated The pet lookup has a sunset date (see its `Sunset` header); afterwards it throws `endpoint_sunset` (410).
     */
    async getPet(petId: bigint): Promise<Pet> {
      const { data, error, response } = await api.GET('/pets/{petId}', { params: { path: { petId } }, parseAs: 'text' });
      if (!response.ok || data === undefined) return fail(error, response);
      return parseJsonExact(data, INT64_FIELDS) as Pet;
    },

    /**
     * v2 (beta): one page of the account's orders in any status, by id, filtered.
     * Pass the page's nextCursor as `cursor`, with the same filters, for the next;
     * a cursor that does not belong to these filters throws `invalid_cursor` (400).
     */
    listOrdersV2,

    /**
     * v2 (beta): every order matching `filter`, page after page (`limit` orders
     * per request), following nextCursor until the last page.
     */
    async *allOrdersV2(filter: OrdersV2Filter & { limit?: number } = {}): AsyncGenerator<OrderV2, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await listOrdersV2({ ...filter, ...(cursor === undefined ? {} : { cursor }) });
        yield* page.data;
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
    },

    /**
     * v2 (beta): places a pending order. With `idempotencyKey`, a repeat
     * returns the first order (`replayed: true`) and the same key with other
     * input throws `idempotency_key_reused` (422).
     */
    async placeOrder({ shipDate, ...input }: PlaceOrderV2Input, { idempotencyKey }: PlaceOrderV2Options = {}): Promise<PlacedOrderV2> {
      const { data, error, response } = await v2().POST('/store/orders', {
        params: { header: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } },
        body: { ...input, ...(shipDate === undefined ? {} : { shipDate: instant(shipDate) }) },
        // petId is a bigint, which JSON.stringify cannot write; it goes out with every digit.
        bodySerializer: stringifyJsonExact,
        parseAs: 'text',
      });
      if (!response.ok || data === undefined) return fail(error, response);
      return { order: parseJsonExact(data, INT64_FIELDS) as OrderV2, replayed: response.headers.get('idempotent-replayed') === 'true' };
    },

    /**
     * v2 (beta): one page of the requests the account's keys made, newest
     * first, filtered (needs the logs:read scope). Pass the page's nextCursor
     * as `cursor`, with the same filters, for the next.
     */
    async listRequestLogs({ keyId, since, until, ...options }: ListRequestLogsOptions = {}): Promise<RequestLogsPage> {
      const query: NonNullable<operationsV2['listRequestLogs']['parameters']['query']> = {
        ...options,
        ...(keyId === undefined ? {} : { keyId }),
        ...(since === undefined ? {} : { since: instant(since) }),
        ...(until === undefined ? {} : { until: instant(until) }),
      };
      const { data, error, response } = await v2().GET('/request-logs', { params: { query }, parseAs: 'text' });
      if (!response.ok || data === undefined) return fail(error, response);
      return parseJsonExact(data, INT64_FIELDS) as RequestLogsPage;
    },

    /** v2 (beta): one order in any status; throws `order_not_found` (404). */
    async getOrderV2(orderId: bigint): Promise<OrderV2> {
      const { data, error, response } = await v2().GET('/store/orders/{orderId}', { params: { path: { orderId } }, parseAs: 'text' });
      if (!response.ok || data === undefined) return fail(error, response);
      return parseJsonExact(data, INT64_FIELDS) as OrderV2;
    },

    /**
     * v2 (beta): cancels a pending order; throws `order_already_shipped` or
     * `order_already_cancelled` (409), or `order_not_found` (404).
     */
    async cancelOrderV2(orderId: bigint): Promise<void> {
      const { error, response } = await v2().DELETE('/store/orders/{orderId}', { params: { path: { orderId } }, parseAs: 'text' });
      if (!response.ok) fail(error, response);
    },
  };
}

type ListOrdersV2Query = NonNullable<operationsV2['listOrdersV2']['parameters']['query']>;

const instant = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

/** The query string of a v2 listing: instants as ISO 8601 text, ids as exact decimals. */
function listQuery({ status, petId, complete, shipDateFrom, shipDateTo, limit, cursor }: ListOrdersV2Options): ListOrdersV2Query {
  return {
    ...(status === undefined ? {} : { status: [...status] }),
    ...(petId === undefined ? {} : { petId }),
    ...(complete === undefined ? {} : { complete }),
    ...(shipDateFrom === undefined ? {} : { shipDateFrom: instant(shipDateFrom) }),
    ...(shipDateTo === undefined ? {} : { shipDateTo: instant(shipDateTo) }),
    ...(limit === undefined ? {} : { limit }),
    ...(cursor === undefined ? {} : { cursor }),
  };
}

export type StoreOrdersClient = ReturnType<typeof createStoreOrdersClient>;

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorRecord(value: unknown): value is ErrorRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.code === 'string' && typeof record.message === 'string' && typeof record.status === 'number';
}
