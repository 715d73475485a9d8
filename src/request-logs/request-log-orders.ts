import { parseInt64 } from '../shared/int64.js';

/**
 * Which order a logged request names: the rule the order page (the requests
 * that touched an order) and the Logs page's link to it share. A path names
 * order N when it is /v<digit>/store/orders/N, alone or followed by "/" or a
 * query; N is the canonical decimal the API accepts (no sign, no leading
 * zero). The storage adapters find such paths by the same rule, through an
 * index on the digits after that prefix (migration 0026).
 */
const ORDER_PATH = /^\/v[0-9]\/store\/orders\/([1-9][0-9]{0,18})(?:[/?]|$)/;

/** The order a request's stored path names, or undefined. */
export function orderIdInPath(path: string): bigint | undefined {
  const digits = ORDER_PATH.exec(path)?.[1];
  return digits === undefined ? undefined : parseInt64(digits);
}
