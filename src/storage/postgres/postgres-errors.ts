import { DatabaseUnavailableError, UnavailableError } from '../../errors/errors.js';

/** The SQLSTATE of an error the server reported, e.g. "23505". */
export function sqlState(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  return /^[0-9A-Z]{5}$/.test(error.code) ? error.code : undefined;
}

export const UNIQUE_VIOLATION = '23505';

/** A deadlock or serialization failure: the transaction was rolled back and may simply be run again. */
export function isTransactionConflict(error: unknown): boolean {
  if (error instanceof TransactionConflictError) return true;
  const state = sqlState(error);
  return state === '40P01' || state === '40001';
}
export const FOREIGN_KEY_VIOLATION = '23503';

/** Network-level errors Node reports when the server cannot be reached. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** node-postgres raises these as plain Errors without a code. */
const CLIENT_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
];

/**
 * Whether `error` means "the database cannot answer right now" rather than
 * "this query is wrong": the server is down, restarting, overloaded or too
 * slow. Such failures are retryable, so clients get 503, not 500.
 */
export function isUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined) {
    // 08: connection exception; 53: insufficient resources (e.g. too many
    // connections); 57P01-57P05: shutdown or cannot connect now; 57014: a
    // statement_timeout cancelled the query; 40001/40P01: a serialization
    // failure or deadlock aborted the transaction (nothing of it happened).
    return state.startsWith('08') || state.startsWith('53') || state.startsWith('57P') || state === '57014' || isTransactionConflict(error);
  }
  if (!(error instanceof Error)) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined && SOCKET_ERRORS.has(code)) return true;
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return CLIENT_MESSAGES.some((message) => error.message.includes(message));
}

/**
 * The one place that turns an unreachable database into the API's 503.
 * Anything else passes through untouched for the caller to map or to become
 * an internal error.
 */
export function toStorageError(error: unknown): unknown {
  if (isTransactionConflict(error)) return new TransactionConflictError();
  if (isUnavailable(error)) {
    // The cause is kept for operators (the CLI says why it cannot connect); clients only ever see the message.
    return new DatabaseUnavailableError('The database is not reachable; retry the request shortly.', { cause: error });
  }
  return error;
}

/** A 503 whose transaction was rolled back by a deadlock or serialization failure: safe to run again. */
export class TransactionConflictError extends UnavailableError {
  constructor() {
    super('The database rolled the request back because of a conflicting one; retry it.');
  }
}
