import { parseArgs } from 'node:util';
import { EVENT_TYPES, type EventType } from '../events/event-types.js';
import { normalizeDateTime } from '../shared/date-time.js';
import { parseDuration } from '../shared/duration.js';
import { parseInt64 } from '../shared/int64.js';
import { didYouMean } from './cli-suggest.js';

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}

/** One flag of a command, declared once: parsing, the required check and the command's --help come from it. */
export interface CliOption {
  readonly type: 'string' | 'boolean';
  /** The value's placeholder in usage, e.g. "<id>" (string options). */
  readonly value?: string;
  readonly description: string;
  /** The command cannot run without it: its absence is a usage error (exit 2). */
  readonly required?: boolean;
  /** The environment variable read when the flag is not given (optionOrEnvironment); its --help names it. */
  readonly env?: string;
}

export type CliOptions = Readonly<Record<string, CliOption>>;

/** A positional argument; every declared one is required. */
export interface CliPositional {
  readonly name: string;
  readonly description: string;
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

export interface ParsedCommandLine {
  readonly values: OptionValues;
  readonly args: readonly string[];
  /** --help or -h was given: print the command's usage instead of running it. */
  readonly help: boolean;
}

export const JSON_OPTION = {
  json: { type: 'boolean', description: 'Print the result as one JSON object on stdout (int64 ids with exact digits)' },
} as const satisfies CliOptions;

export const EXPIRY_OPTIONS = {
  'expires-in': { type: 'string', value: '<90d|24h|30m>', description: 'The key expires after this long' },
  'expires-at': { type: 'string', value: '<ISO 8601>', description: 'The key expires at this date-time with an offset (not with --expires-in)' },
} as const satisfies CliOptions;

/**
 * Parses a command's arguments against its declaration: unknown options,
 * a missing value, the wrong number of positionals and a missing required
 * option are usage errors. With --help nothing else is checked.
 */
export function parseCommandLine(
  command: { readonly name: string; readonly options: CliOptions; readonly positionals?: readonly CliPositional[] },
  argv: readonly string[],
): ParsedCommandLine {
  const options = Object.fromEntries(Object.entries(command.options).map(([name, option]) => [name, { type: option.type }]));
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw unknownOption(command, error) ?? error;
  }
  const values: OptionValues = parsed.values;
  if (values.help === true) return { values, args: parsed.positionals, help: true };
  const expected = command.positionals ?? [];
  const args = parsed.positionals;
  if (expected.length === 0 && args.length > 0) {
    throw new UsageError(`${command.name} takes no arguments (got "${args[0] ?? ''}"); run store-orders ${command.name} --help`);
  }
  if (args.length !== expected.length) throw new UsageError(`expected ${expected.map((p) => `<${p.name}>`).join(' ')}`);
  for (const [name, option] of Object.entries(command.options)) {
    if (option.required === true && values[name] === undefined) throw new UsageError(`--${name} is required`);
  }
  return { values, args, help: false };
}

/** parseArgs's long advice about positionals replaced by the likely intended flag, when a flag is unknown. */
function unknownOption(command: { readonly name: string; readonly options: CliOptions }, error: unknown): UsageError | undefined {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  const typed = error instanceof Error && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec(error.message)?.[1] : undefined;
  if (typed === undefined) return undefined;
  const flags = [...Object.keys(command.options), 'help'].map((name) => `--${name}`);
  return new UsageError(`Unknown option '${typed}'${didYouMean(typed, flags)}; run store-orders ${command.name} --help`);
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The flag's value, else that of the environment variable it declares (`env`); an empty variable counts as unset. */
export function optionOrEnvironment(values: OptionValues, name: string, option: CliOption, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const fromEnv = option.env === undefined ? undefined : env[option.env];
  return optionalString(values, name) ?? (fromEnv === '' ? undefined : fromEnv);
}

/** A comma-separated list of event types (`--type`, `--events`), each one of the catalogue's; undefined when the flag is absent. */
export function eventTypesOption(values: OptionValues, name: string): EventType[] | undefined {
  const text = optionalString(values, name);
  if (text === undefined) return undefined;
  const types = text.split(/[\s,]+/).filter((type) => type !== '');
  const unknown = types.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined) throw new UsageError(`--${name}: unknown event type "${unknown}"; known: ${EVENT_TYPES.join(', ')}`);
  return types as EventType[];
}

export function requiredString(values: OptionValues, name: string): string {
  const value = optionalString(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

export function positiveInteger(text: string, label: string): number {
  const value = /^[1-9][0-9]{0,14}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value)) throw new UsageError(`${label} must be a positive integer`);
  return value;
}

export function integer(text: string, label: string): number {
  if (!/^-?[0-9]{1,15}$/.test(text)) throw new UsageError(`${label} must be an integer`);
  return Number(text);
}

export function int64(text: string, label: string): bigint {
  const value = parseInt64(text);
  if (value === undefined) throw new UsageError(`${label} must be a decimal integer in the int64 range`);
  return value;
}

export function accountIdOption(values: OptionValues): number {
  return positiveInteger(requiredString(values, 'account'), '--account');
}

/** --expires-in <duration> or --expires-at <RFC 3339>, as an ISO instant; neither: no expiry. */
export function expiryOption(values: OptionValues): { expiresAt?: string } {
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
