import { AppError, type ErrorCode } from '../errors/errors.js';
import { isUnavailable, sqlState, TransactionConflictError } from '../storage/postgres/postgres-errors.js';
import { UsageError } from './cli-args.js';
import { oneLine } from './cli-output.js';

/**
 * How a CLI run ended when it did not succeed. With --json it is printed on
 * stdout as `{"code","message","exitCode"}` (docs/cli.md): the API's Error
 * record with the process's exit code in place of an HTTP status. `code` is
 * the API's code when a service refused (account_not_found, order_id_taken,
 * validation_failed, ...) or one of these CLI codes.
 */
export type CliErrorCode =
  | 'usage_error'
  | 'unknown_command'
  | 'invalid_configuration'
  | 'database_unavailable'
  | 'database_error'
  | 'command_failed'
  | 'database_not_created'
  | 'database_not_empty'
  | 'interrupted'
  | 'internal_error';

export interface CliErrorRecord {
  readonly code: CliErrorCode | ErrorCode;
  readonly message: string;
  readonly exitCode: number;
}

/** The operator pressed Ctrl-C; what was rolled back is in the message. Exit code 130 (128 + SIGINT). */
export class InterruptedError extends Error {}

const record = (code: CliErrorRecord['code'], exitCode: number, message: string): CliErrorRecord => ({ code, message, exitCode });

/** The underlying reason of a storage error (its `cause`), on one line. */
function reason(error: Error): string | undefined {
  return error.cause === undefined ? undefined : oneLine(error.cause);
}

/**
 * Words a failure for an operator: a usage mistake, a refusal of a service
 * (its own message), or what went wrong with the database in its own terms
 * (never the HTTP wording of a 503, never "unexpected" for a database that
 * refused a password).
 */
export function describeFailure(error: unknown): CliErrorRecord {
  if (error instanceof UsageError) return record('usage_error', 2, error.message);
  if (error instanceof InterruptedError) return record('interrupted', 130, error.message);
  if (error instanceof CommandFailed) return record(error.code, 1, error.message);
  if (error instanceof TransactionConflictError) {
    return record('database_unavailable', 1, 'the database rolled the command back because of a conflicting change; nothing was done, run it again');
  }
  if (error instanceof AppError && error.code === 'service_unavailable') {
    const sqliteBusy = error.cause instanceof Error && 'code' in error.cause && String(error.cause.code).startsWith('SQLITE_');
    if (sqliteBusy) return record('database_unavailable', 1, `the database is busy (another process holds it): ${reason(error) ?? ''}; run the command again`);
    return record('database_unavailable', 1, `cannot connect to the database: ${reason(error) ?? 'it is not reachable'}`);
  }
  if (error instanceof AppError) return record(error.code, 1, error.message);
  const state = sqlState(error);
  // 28: invalid authorization (a wrong password or role); 3D000: no such database.
  if (isUnavailable(error) || state?.startsWith('28') === true || state === '3D000') {
    return record('database_unavailable', 1, `cannot connect to the database: ${oneLine(error)}`);
  }
  if (state !== undefined) return record('database_error', 1, `database error: ${oneLine(error)} (SQLSTATE ${state})`);
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('SQLITE_')) {
    return record('database_error', 1, `database error: ${oneLine(error)} (${error.code})`);
  }
  return record('internal_error', 1, `unexpected error: ${oneLine(error)}`);
}

/**
 * Removes a database URL that holds a password, and the password, from a
 * message. Our own messages never include them; this guards against a
 * driver that quotes its connection string back. A URL without a password
 * (a SQLite file, a PostgreSQL reached without one) is no secret and stays,
 * so that the hints of our messages still name it (shared/shell-hint.ts).
 */
export function redactSecrets(message: string, env: Readonly<Record<string, string | undefined>>): string {
  const url = env.DATABASE_URL;
  if (url === undefined || url === '') return message;
  let password: string | undefined;
  try {
    password = new URL(url).password;
  } catch {
    password = undefined;
  }
  if (password === undefined || password === '') return message;
  let result = message.split(url).join('<DATABASE_URL>');
  // A password under 4 characters is left alone: replacing it would mangle ordinary words.
  for (const form of password.length < 4 ? [] : [password, decodeURIComponentSafe(password)]) {
    result = result.split(form).join('***');
  }
  return result;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The command ran and failed, with a message fit for the operator: exit code 1. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    /** The `code` of the --json error record (docs/cli.md). */
    readonly code: Extract<CliErrorCode, 'command_failed' | 'database_not_created' | 'database_not_empty'> = 'command_failed',
  ) {
    super(message);
  }
}
