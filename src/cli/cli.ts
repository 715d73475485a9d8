import { open } from 'node:fs/promises';
import path from 'node:path';
import type { WriteStream } from 'node:tty';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Account } from '../accounts/accounts-repository.js';
import { API_KEY_SCOPES, parseScopes, type ApiKeyScope } from '../api-keys/api-key-scopes.js';
import type { ApiKey } from '../api-keys/api-keys-repository.js';
import { createContainer, type Container } from '../composition.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { AppError } from '../errors/errors.js';
import type { Order } from '../orders/orders-repository.js';
import { normalizeDateTime } from '../shared/date-time.js';
import { parseDuration } from '../shared/duration.js';
import { parseInt64 } from '../shared/int64.js';
import { ndjsonLines, type LineSource } from '../shared/ndjson-lines.js';
import { stringifyJson } from '../shared/json.js';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Read by `orders import -`. */
  stdin?: NodeJS.ReadableStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** A mistake in how the command was called: exit code 2. */
class UsageError extends Error {}

const USAGE = `Usage: store-orders <command> [options]

Commands:
  serve [--workers <n>]                   Run the HTTP server (migrates first); n > 1
                                          runs n worker processes sharing the port
  migrate                                 Create or upgrade the database schema
  accounts create --name <name>           Create an account
  accounts list                           List accounts
  keys create --account <id> [--name <label>] [--scopes <s1,s2>]
              [--expires-in <90d|24h|30m> | --expires-at <ISO 8601>]
                                          Issue an API key (the secret is shown once);
                                          scopes: orders:read, orders:write, pets:read,
                                          messages:write (default: all); default: no expiry
  keys list --account <id>                List an account's keys (never the secrets)
  keys roll <keyId> [--grace <24h>] [--expires-in <d> | --expires-at <ISO>]
                                          Issue a replacement key; the old one keeps
                                          working for the grace period (default 24h)
  keys revoke <keyId>                     Revoke a key
  orders create --account <id> --pet-id <int64> --quantity <n>
                [--ship-date <ISO 8601>] [--complete] [--id <int64>]
                                          Place a pending order
  orders list --account <id>              List an account's orders, any status
  orders ship <orderId>                   Move a pending order to shipped
  orders import --account <id> <file.ndjson | ->
                                          Load pending orders in bulk, one JSON object
                                          per line ({"petId":1,"quantity":2,...});
                                          all or nothing; - reads stdin
  pets create --account <id> --name <name> [--id <int64>]
                                          Register a pet (for the deprecated pet lookup)

Every command but serve accepts --json (one JSON object on stdout).
Configuration comes from the environment: PORT, HOST, DATABASE_URL, LOG_LEVEL,
STORE_ENVIRONMENT, SHUTDOWN_GRACE_MS, DATABASE_POOL_SIZE, SQLITE_SYNCHRONOUS,
CURSOR_SECRET, CURSOR_SECRET_PREVIOUS, PUBLIC_BASE_URL, STAGING_BASE_URL,
PETS_DEPRECATION_DATE, PETS_SUNSET_DATE (see the README).
`;

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  options: Options;
  /** Names of the positional arguments, all required. */
  positionals?: string[];
  run(ctx: { container: Container; values: Values; args: string[]; print: Printer; io: CliIo }): Promise<void>;
}

interface Printer {
  /** Prints `json` with --json, otherwise the human lines. */
  result(json: object, human: string): void;
}

const json = { json: { type: 'boolean' } } as const satisfies Options;
const expiry = { 'expires-in': { type: 'string' }, 'expires-at': { type: 'string' } } as const satisfies Options;

const COMMANDS: Readonly<Record<string, Command>> = {
  migrate: {
    options: json,
    async run({ container, print }) {
      const report = await container.storage.migrate();
      print.result(
        report,
        report.applied.length === 0
          ? `Schema is up to date (version ${report.version}).`
          : `Applied ${report.applied.join(', ')}; schema is at version ${report.version}.`,
      );
    },
  },
  'accounts create': {
    options: { ...json, name: { type: 'string' } },
    async run({ container, values, print }) {
      const account = await container.services.accounts.createAccount({ name: requiredString(values, 'name') });
      print.result(accountJson(account), `Created account ${account.id} (${account.name}).`);
    },
  },
  'accounts list': {
    options: json,
    async run({ container, print }) {
      const accounts = await container.services.accounts.listAccounts();
      print.result(
        { accounts: accounts.map(accountJson) },
        accounts.length === 0 ? 'No accounts.' : accounts.map((a) => `${a.id}\t${a.name}\t${a.createdAt}`).join('\n'),
      );
    },
  },
  'keys create': {
    options: { ...json, ...expiry, account: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' } },
    async run({ container, values, print }) {
      const scopesText = optionalString(values, 'scopes');
      let scopes: ApiKeyScope[] | undefined;
      if (scopesText !== undefined) {
        const parsed = parseScopes(scopesText);
        if (!parsed.ok) throw new UsageError(`--scopes: unknown scope "${parsed.unknown}"; known: ${API_KEY_SCOPES.join(', ')}`);
        scopes = parsed.scopes;
      }
      const { apiKey, secret } = await container.services.apiKeys.createKey({
        accountId: accountIdOption(values),
        name: optionalString(values, 'name'),
        ...(scopes === undefined ? {} : { scopes }),
        ...expiryOption(values),
      });
      print.result(
        { ...apiKeyJson(apiKey), key: secret },
        `Created API key ${apiKey.id} for account ${apiKey.accountId}:\n\n  ${secret}\n\n` +
          'Store it now: it is shown only this once and cannot be recovered.',
      );
    },
  },
  'keys list': {
    options: { ...json, account: { type: 'string' } },
    async run({ container, values, print }) {
      const keys = await container.services.apiKeys.listKeys(accountIdOption(values));
      print.result(
        { keys: keys.map(apiKeyJson) },
        keys.length === 0
          ? 'No keys.'
          : keys
              .map(
                (k) =>
                  `${k.id}\t${k.start}…\t${k.name ?? ''}\t${k.scopes.join(',')}\tcreated ${k.createdAt}` +
                  `${k.expiresAt ? `\texpires ${k.expiresAt}` : ''}${k.lastUsedAt ? `\tlast used ${k.lastUsedAt}` : ''}` +
                  `${k.revokedAt ? `\trevoked ${k.revokedAt}` : ''}`,
              )
              .join('\n'),
      );
    },
  },
  'keys roll': {
    options: { ...json, ...expiry, grace: { type: 'string' } },
    positionals: ['keyId'],
    async run({ container, values, args, print }) {
      const keyId = positiveInteger(args[0] ?? '', 'keyId');
      const graceText = optionalString(values, 'grace') ?? '24h';
      const graceMs = parseDuration(graceText);
      if (graceMs === undefined) throw new UsageError('--grace must be a duration such as 24h, 30m or 0');
      const { old, apiKey, secret } = await container.services.apiKeys.rollKey({ keyId, graceMs, ...expiryOption(values) });
      print.result(
        { ...apiKeyJson(apiKey), key: secret, replaced: apiKeyJson(old) },
        `Created API key ${apiKey.id} to replace key ${old.id}:\n\n  ${secret}\n\n` +
          `Key ${old.id} keeps working until ${old.expiresAt ?? 'never'}.\n` +
          'Store the new key now: it is shown only this once and cannot be recovered.',
      );
    },
  },
  'keys revoke': {
    options: json,
    positionals: ['keyId'],
    async run({ container, args, print }) {
      const keyId = positiveInteger(args[0] ?? '', 'keyId');
      const outcome = await container.services.apiKeys.revokeKey(keyId);
      print.result(
        { id: keyId, revoked: true, alreadyRevoked: outcome === 'already_revoked' },
        outcome === 'revoked' ? `Revoked API key ${keyId}.` : `API key ${keyId} was already revoked.`,
      );
    },
  },
  'orders create': {
    options: {
      ...json,
      account: { type: 'string' },
      'pet-id': { type: 'string' },
      quantity: { type: 'string' },
      'ship-date': { type: 'string' },
      complete: { type: 'boolean' },
      id: { type: 'string' },
    },
    async run({ container, values, print }) {
      const id = optionalString(values, 'id');
      const order = await container.services.orders.createOrder({
        accountId: accountIdOption(values),
        id: id === undefined ? undefined : int64(id, '--id'),
        petId: int64(requiredString(values, 'pet-id'), '--pet-id'),
        quantity: integer(requiredString(values, 'quantity'), '--quantity'),
        shipDate: optionalString(values, 'ship-date'),
        complete: values.complete === true,
      });
      print.result(orderJson(order), `Created order ${order.id} (pending) for account ${order.accountId}.`);
    },
  },
  'orders list': {
    options: { ...json, account: { type: 'string' } },
    async run({ container, values, print }) {
      const orders = await container.services.orders.listAllOrders(accountIdOption(values));
      print.result(
        { orders: orders.map(orderJson) },
        orders.length === 0
          ? 'No orders.'
          : orders.map((o) => `${o.id}\t${o.status}\tpet ${o.petId ?? '-'}\tqty ${o.quantity ?? '-'}\t${o.shipDate ?? ''}`).join('\n'),
      );
    },
  },
  'orders import': {
    options: { ...json, account: { type: 'string' } },
    positionals: ['file'],
    async run({ container, values, args, print, io }) {
      const source = args[0] ?? '';
      const input = await openImportSource(source, io);
      const progress = progressBar(io.stderr, input.size);
      try {
        const { imported } = await container.services.orders.importOrders(accountIdOption(values), input.lines, {
          onProgress: (count) => progress.update(count, input.bytesRead()),
        });
        progress.done();
        print.result({ imported }, `Imported ${imported} orders into account ${accountIdOption(values)}.`);
      } catch (error) {
        progress.done();
        throw error;
      } finally {
        await input.close();
      }
    },
  },
  'orders ship': {
    options: json,
    positionals: ['orderId'],
    async run({ container, args, print }) {
      const orderId = int64(args[0] ?? '', 'orderId');
      await container.services.orders.shipOrder(orderId);
      print.result({ id: orderId, status: 'shipped' }, `Order ${orderId} is now shipped.`);
    },
  },
  'pets create': {
    options: { ...json, account: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' } },
    async run({ container, values, print }) {
      const id = optionalString(values, 'id');
      const pet = await container.services.pets.createPet({
        accountId: accountIdOption(values),
        name: requiredString(values, 'name'),
        id: id === undefined ? undefined : int64(id, '--id'),
      });
      print.result(
        { id: pet.id, accountId: pet.accountId, name: pet.name, createdAt: pet.createdAt },
        `Created pet ${pet.id} (${pet.name}) for account ${pet.accountId}.`,
      );
    },
  },
};

/**
 * Runs one CLI invocation and returns its exit code: 0 success, 1 the
 * command failed, 2 it was called wrongly (or the configuration is invalid).
 * Never prints a stack trace.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  serve: (config: Config, options: { workers: number }) => Promise<void>,
): Promise<number> {
  const fail = (code: number, message: string) => {
    io.stderr.write(`store-orders: ${message}\n`);
    return code;
  };
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    (first === undefined ? io.stderr : io.stdout).write(USAGE);
    return first === undefined ? 2 : 0;
  }

  let config: Config;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) return fail(2, `invalid configuration: ${error.problems.join('; ')}`);
    throw error;
  }

  if (first === 'serve') {
    let workers: number;
    try {
      const { values, positionals } = parseArgs({ args: argv.slice(1), options: { workers: { type: 'string' } }, allowPositionals: true, strict: true });
      if (positionals.length > 0) throw new UsageError('serve takes no arguments other than --workers <n>; run store-orders --help');
      workers = values.workers === undefined ? 1 : positiveInteger(values.workers, '--workers');
      if (workers > 64) throw new UsageError('--workers must be from 1 to 64');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return fail(2, `${message.startsWith('serve') ? '' : 'serve: '}${message}`);
    }
    try {
      await serve(config, { workers });
      return 0;
    } catch (error) {
      return fail(1, `cannot serve: ${oneLine(error)}`);
    }
  }

  const name = second === undefined ? first : `${first} ${second}`;
  const command = COMMANDS[name] ?? COMMANDS[first];
  if (command === undefined) return fail(2, `unknown command "${name}"; run store-orders --help`);
  const rest = argv.slice(COMMANDS[name] === undefined ? 1 : 2);

  let values: Values;
  let args: string[];
  try {
    const parsed = parseArgs({ args: [...rest], options: command.options, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    args = parsed.positionals;
    const expected = command.positionals ?? [];
    if (args.length !== expected.length) {
      throw new UsageError(
        expected.length === 0
          ? `unexpected argument "${args[0] ?? ''}"`
          : `expected ${expected.map((p) => `<${p}>`).join(' ')}`,
      );
    }
  } catch (error) {
    return fail(2, `${name}: ${oneLine(error)}`);
  }

  const print: Printer = {
    result: (jsonValue, human) => io.stdout.write(`${values.json === true ? stringifyJson(jsonValue) : human}\n`),
  };
  let container: Container;
  try {
    container = createContainer(config);
  } catch (error) {
    return fail(1, `cannot open the database: ${oneLine(error)}`);
  }
  try {
    // Every command works on a fresh database; `migrate` reports its own run.
    if (command !== COMMANDS.migrate) await container.storage.migrate();
    await command.run({ container, values, args, print, io });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return fail(2, `${name}: ${error.message}`);
    if (error instanceof AppError) return fail(1, error.message);
    return fail(1, `unexpected error: ${oneLine(error)}`);
  } finally {
    await container.close();
  }
}

/** An error's message on one line: no stack, no embedded newlines. */
function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
}

function optionalString(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function requiredString(values: Values, name: string): string {
  const value = optionalString(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

function positiveInteger(text: string, label: string): number {
  const value = /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value)) throw new UsageError(`${label} must be a positive integer`);
  return value;
}

/** --expires-in <duration> or --expires-at <RFC 3339>, as an ISO instant; neither: no expiry. */
function expiryOption(values: Values): { expiresAt?: string } {
  const expiresIn = optionalString(values, 'expires-in');
  const expiresAt = optionalString(values, 'expires-at');
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (ms === undefined || ms === 0) throw new UsageError('--expires-in must be a duration such as 90d, 24h or 30m');
    return { expiresAt: new Date(Date.now() + ms).toISOString() };
  }
  if (expiresAt !== undefined) {
    const normalized = normalizeDateTime(expiresAt);
    if (normalized === undefined) throw new UsageError('--expires-at must be an ISO 8601 date-time with an offset, e.g. 2027-01-01T00:00:00Z');
    return { expiresAt: normalized };
  }
  return {};
}

function accountIdOption(values: Values): number {
  return positiveInteger(requiredString(values, 'account'), '--account');
}

function integer(text: string, label: string): number {
  if (!/^-?[0-9]{1,15}$/.test(text)) throw new UsageError(`${label} must be an integer`);
  return Number(text);
}

function int64(text: string, label: string): bigint {
  const value = parseInt64(text);
  if (value === undefined) throw new UsageError(`${label} must be a decimal integer in the int64 range`);
  return value;
}

const accountJson = (a: Account) => ({ id: a.id, name: a.name, createdAt: a.createdAt });

function apiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    accountId: k.accountId,
    name: k.name ?? null,
    start: k.start,
    scopes: k.scopes,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt ?? null,
    lastUsedAt: k.lastUsedAt ?? null,
    revokedAt: k.revokedAt ?? null,
  };
}

function orderJson(o: Order) {
  return { id: o.id, accountId: o.accountId, petId: o.petId, quantity: o.quantity, shipDate: o.shipDate, complete: o.complete, status: o.status };
}

interface ImportSource extends LineSource {
  /** Total bytes, when known (a file, not a pipe). */
  size: number | undefined;
  /** Releases the input (the import may end before reading all of it). */
  close(): Promise<void>;
}

/** Why a file cannot be read, in words; undefined for errors that are not about the file. */
const UNREADABLE = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
} as const;

async function openImportSource(source: string, io: CliIo): Promise<ImportSource> {
  if (source === '-') {
    const stdin = io.stdin;
    if (stdin === undefined) throw new UsageError('no standard input to read from');
    // Standard input is the caller's: the line reader stops reading it when the import ends.
    return { ...ndjsonLines(stdin), size: undefined, close: async () => undefined };
  }
  const cannotRead = (reason: string) => new AppError('validation_failed', `Cannot read ${source}: ${reason}.`);
  const unreadable = (error: unknown) => {
    const reason = (UNREADABLE as Readonly<Record<string, string | undefined>>)[(error as NodeJS.ErrnoException).code ?? ''];
    return reason === undefined ? error : cannotRead(reason);
  };
  // Opened (and refused) here: storage may take a while to begin (PostgreSQL's BEGIN) before the first read.
  let handle;
  try {
    handle = await open(path.resolve(io.cwd, source));
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw cannotRead(UNREADABLE.EISDIR);
    const stream = handle.createReadStream({ highWaterMark: 1 << 20, autoClose: false });
    return {
      ...ndjsonLines(stream),
      size: stats.size,
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw unreadable(error);
  }
}

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
function progressBar(stderr: NodeJS.WritableStream, totalBytes: number | undefined) {
  const tty = (stderr as Partial<WriteStream>).isTTY === true;
  let lastDrawn = 0;
  let drawn = false;
  return {
    update(count: number, bytes: number) {
      const now = Date.now();
      if (!tty || now - lastDrawn < 100) return;
      lastDrawn = now;
      drawn = true;
      const width = 30;
      if (totalBytes !== undefined && totalBytes > 0) {
        const fraction = Math.min(1, bytes / totalBytes);
        const filled = Math.round(fraction * width);
        stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${count.toLocaleString('en-US')} orders`);
      } else {
        stderr.write(`\r${count.toLocaleString('en-US')} orders read`);
      }
    },
    done() {
      if (drawn) stderr.write('\n');
    },
  };
}
