import { ValidationError } from '../errors/errors.js';
import { normalizeDateTime } from '../shared/date-time.js';
import { isInt64 } from '../shared/int64.js';
import type { NewOrder } from './orders-repository.js';

/** Quantity is a count of units: a positive 32-bit integer. */
export const QUANTITY_MAX = 2_147_483_647;

export interface CreateOrderInput {
  accountId: number;
  id?: bigint;
  petId?: bigint;
  quantity?: number;
  /** Any RFC 3339 date-time; stored normalised to UTC. */
  shipDate?: string;
  complete?: boolean;
}

/** Validates an order placed through the operator interfaces. */
export function newPendingOrder(
  input: CreateOrderInput,
  createdAt: string,
  normalizeShipDate: (text: string) => string | undefined = normalizeDateTime,
): NewOrder {
  if (input.id !== undefined && !isInt64(input.id)) throw new ValidationError('Order id must be an int64.');
  if (input.petId !== undefined && !isInt64(input.petId)) throw new ValidationError('Pet id must be an int64.');
  if (input.quantity !== undefined && !(Number.isInteger(input.quantity) && input.quantity >= 1 && input.quantity <= QUANTITY_MAX)) {
    throw new ValidationError(`Quantity must be an integer from 1 to ${QUANTITY_MAX}.`);
  }
  let shipDate: string | undefined;
  if (input.shipDate !== undefined) {
    shipDate = normalizeShipDate(input.shipDate);
    if (shipDate === undefined) {
      throw new ValidationError('Ship date must be an ISO 8601 date-time with a time zone, e.g. 2026-12-01T10:00:00Z.');
    }
  }
  return {
    id: input.id,
    accountId: input.accountId,
    petId: input.petId,
    quantity: input.quantity,
    shipDate,
    complete: input.complete ?? false,
    status: 'pending',
    createdAt,
  };
}
