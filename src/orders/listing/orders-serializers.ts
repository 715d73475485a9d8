import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import type { ListedOrder } from '../orders-repository.js';
import { OrderSchema } from '../orders-schemas.js';

/**
 * The v1 listing's JSON, compiled once from the v1 Order schema (as Fastify
 * compiles a route's response schema): the documented fields in schema order,
 * absent ones omitted, anything else dropped, int64 with every digit.
 */
const serializeOrderArray = fastJson(Type.Array(OrderSchema));

/** A JSON array of v1 Order records. */
export function serializeOrders(orders: ListedOrder[]): string {
  return serializeOrderArray(orders);
}
