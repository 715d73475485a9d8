export { createStoreOrdersClient, StoreOrdersApiError } from './store-orders-client.js';
export type { ErrorCode, ErrorRecord, Order, Pet, StoreOrdersClient, StoreOrdersClientOptions } from './store-orders-client.js';
export type { components, operations, paths } from './openapi-types.js';
