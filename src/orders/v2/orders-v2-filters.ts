import { createHash } from 'node:crypto';
import type { OrderFilter } from '../orders-repository.js';

/**
 * A digest of the normalised filter set. Two requests with the same filters
 * (status values in any order or repeated) have the same digest.
 */
export function filterDigest(filter: OrderFilter): string {
  return createHash('sha256').update(canonicalFilter(filter)).digest('base64url').slice(0, 22);
}

export function canonicalFilter(filter: OrderFilter): string {
  return JSON.stringify([
    filter.statuses === undefined ? null : [...new Set(filter.statuses)].sort(),
    filter.petId === undefined ? null : filter.petId.toString(),
    filter.complete ?? null,
    filter.shipDateFrom ?? null,
    filter.shipDateTo ?? null,
  ]);
}
