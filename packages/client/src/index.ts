export { createStoreOrdersClient, StoreOrdersApiError } from './store-orders-client.js';
export { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';
export type { VerifyWebhookOptions, WebhookEvent } from './verify-webhook.js';
export type {
  ErrorCode,
  ErrorRecord,
  ListOrdersV2Options,
  ListRequestLogsOptions,
  Order,
  OrdersPageV2,
  OrdersV2Filter,
  OrderStatus,
  OrderV2,
  Pet,
  PlacedOrderV2,
  PlaceOrderV2Input,
  PlaceOrderV2Options,
  RequestLog,
  RequestLogsPage,
  StoreOrdersClient,
  StoreOrdersClientOptions,
} from './store-orders-client.js';
export type { components, operations, paths } from './openapi-types.js';
export type { components as componentsV2, operations as operationsV2, paths as pathsV2 } from './openapi-v2-types.js';
