import { AppError, ValidationError } from '../../errors/errors.js';
import { normalizeDateTime } from '../../shared/date-time.js';
import { parseInt64 } from '../../shared/int64.js';
import { newPendingOrder } from '../new-order.js';
import type { NewOrder } from '../orders-repository.js';

/** What one import line may say; the same fields as `orders create`. */
export interface OrderLine {
  id?: bigint;
  petId: bigint;
  quantity: number;
  shipDate?: string;
  complete?: boolean;
}

const FIELDS = new Set(['id', 'petId', 'quantity', 'shipDate', 'complete']);

/*
 * JSON.parse turns 9007199254740993 into ...992. Before parsing, the bare
 * integer values of "id" and "petId" are quoted so that their digits survive.
 * A key can only match outside strings: inside a JSON string its quotes are
 * escaped (\"id\"), which this pattern does not match.
 */
const INT64_FIELD = /("(?:id|petId)"\s*:\s*)(-?\d+)(?=\s*[,}])/g;

/** JSON text whose bare integer "id" and "petId" values are quoted, so that JSON.parse keeps their digits. */
export function quoteInt64Fields(text: string): string {
  return text.replace(INT64_FIELD, '$1"$2"');
}

export function int64Field(value: unknown, name: string): bigint {
  const parsed =
    typeof value === 'string' ? parseInt64(value) : typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (parsed === undefined) throw new ValidationError(`"${name}" must be an integer in the int64 range.`);
  return parsed;
}

/**
 * Parses one NDJSON import line, e.g.
 * {"id": 1, "petId": 9007199254740993, "quantity": 2, "shipDate": "2026-12-01T10:00:00Z", "complete": false}.
 * Throws ValidationError saying what is wrong (never echoing the line).
 */
function parseOrderLine(line: string): OrderLine {
  let value: unknown;
  try {
    value = JSON.parse(quoteInt64Fields(line));
  } catch {
    throw new ValidationError('not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError('expected a JSON object.');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!FIELDS.has(key)) throw new ValidationError(`unknown field "${key.slice(0, 40)}" (allowed: ${[...FIELDS].join(', ')}).`);
  }
  if (record.petId === undefined) throw new ValidationError('"petId" is required.');
  if (typeof record.quantity !== 'number') throw new ValidationError('"quantity" is required and must be a number.');
  if (record.shipDate !== undefined && typeof record.shipDate !== 'string') throw new ValidationError('"shipDate" must be a string.');
  if (record.complete !== undefined && typeof record.complete !== 'boolean') throw new ValidationError('"complete" must be true or false.');
  return {
    id: record.id === undefined ? undefined : int64Field(record.id, 'id'),
    petId: int64Field(record.petId, 'petId'),
    quantity: record.quantity,
    shipDate: record.shipDate,
    complete: record.complete,
  };
}

/** One line of a parsed batch that was refused: its index in the batch, and why. */
export interface RefusedLine {
  index: number;
  message: string;
}

/** A batch of import lines as orders, or the first line refused. */
export type ParsedBatch = { orders: NewOrder[] } | { refused: RefusedLine };

/**
 * `normalizeDateTime`, remembering recent answers: bulk data repeats ship
 * dates, and parsing each one again is a third of the work.
 */
export function rememberingDateTimes(): (text: string) => string | undefined {
  const seen = new Map<string, string | undefined>();
  return (text) => {
    if (seen.has(text)) return seen.get(text);
    if (seen.size >= 10_000) seen.clear();
    const normalized = normalizeDateTime(text);
    seen.set(text, normalized);
    return normalized;
  };
}

/**
 * Parses and validates non-blank import lines into new pending orders of
 * `accountId`, stopping at the first refused line.
 */
export function parseOrderBatch(
  lines: readonly string[],
  { accountId, createdAt, normalizeShipDate }: { accountId: number; createdAt: string; normalizeShipDate: (text: string) => string | undefined },
): ParsedBatch {
  const orders: NewOrder[] = [];
  for (let index = 0; index < lines.length; index++) {
    try {
      const line = parseOrderLine(lines[index] ?? '');
      orders.push(newPendingOrder({ accountId, ...line }, createdAt, normalizeShipDate));
    } catch (error) {
      if (error instanceof AppError) return { refused: { index, message: error.message } };
      throw error;
    }
  }
  return { orders };
}
