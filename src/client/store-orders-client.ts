import createClient from 'openapi-fetch';
import { parseJsonExact } from './exact-json.js';
import type { components, paths } from './openapi-types.js';

export type Order = components['schemas']['Order'];
export type Pet = components['schemas']['Pet'];
export type ErrorRecord = components['schemas']['Error'];
export type ErrorCode = ErrorRecord['code'];

/** The fields the contract types as int64; they are parsed as bigint. */
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
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A typed client for the Store Orders API. Identifiers (`id`, `petId`) are
 * bigint: they are int64 and a JS number cannot hold all of them.
 * Every non-2xx response throws StoreOrdersApiError.
 */
export function createStoreOrdersClient({ baseUrl, apiKey, fetch }: StoreOrdersClientOptions) {
  const api = createClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
    ...(fetch === undefined ? {} : { fetch }),
  });

  const fail = (error: unknown, response: Response): never => {
    const record = typeof error === 'string' ? safeParse(error) : error;
    if (isErrorRecord(record)) throw new StoreOrdersApiError(record, response.headers.get('x-request-id') ?? undefined);
    throw new Error(`Unexpected HTTP ${response.status} from the Store Orders API`);
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
