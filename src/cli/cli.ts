import { readFileSync } from 'node:fs';
import type { Container } from '../composition.js';
import type { Config } from '../config/config.js';
import { parseCommandLine, UsageError, type ParsedCommandLine } from './cli-args.js';
import { describeFailure, redactSecrets, type CliErrorRecord } from './cli-errors.js';
import { commandUsage, fullUsage, groupUsage, shortUsage } from './cli-help.js';
import { createPrinter, escapeControls, oneLine, type CliIo } from './cli-output.js';
import { didYouMean } from './cli-suggest.js';
import type { CliCommand, ServeFunction } from './commands/command.js';
import { loadCommands, loadCommandsStartingWith } from './commands/index.js';

/*
 * Start-up: this module and its static imports are all that --version and
 * a command's --help load. A command's module is imported when it runs
 * (commands/index.ts), the configuration (TypeBox) once a command needs it,
 * the composition root only for a database command and the server only for
 * serve.
 */

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

/** The commands of a group ("keys": keys create, keys list, ...). */
const groupCommands = (commands: readonly CliCommand[], group: string) => commands.filter((command) => command.name.startsWith(`${group} `));

/** "keys create" as two words, else a one-word command ("migrate", "serve"), among the commands starting with `first`. */
function findCommand(commands: readonly CliCommand[], first: string, second: string | undefined): CliCommand | undefined {
  return commands.find((command) => command.name === `${first} ${second ?? ''}`) ?? commands.find((command) => command.name === first);
}

/** The package's version, read where it is defined rather than repeated. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(pkg.version);
}

/** --json anywhere before a `--` terminator: a failure is then also printed as a JSON record on stdout. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

const failureRecord = (code: CliErrorRecord['code'], exitCode: number, message: string): CliErrorRecord => ({ code, message, exitCode });

/**
 * Runs one CLI invocation and returns its exit code: 0 success, 1 the
 * command failed, 2 it was called wrongly (or the configuration is invalid),
 * 130 interrupted (Ctrl-C). Never prints a stack trace. Help never needs a
 * valid configuration. With --json, a failure is printed on stdout as a JSON
 * record `{"code","message","exitCode"}` as well as in words on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo, serve: ServeFunction, onConfig?: (config: Config) => Promise<void>): Promise<number> {
  const asJson = wantsJson(argv);
  const fail = (failure: CliErrorRecord) => {
    const message = redactSecrets(failure.message, io.env);
    // A message may quote what a user stored (an email): never a terminal escape sequence.
    io.stderr.write(`store-orders: ${escapeControls(message)}\n`);
    if (asJson) io.stdout.write(`${escapeControls(JSON.stringify({ code: failure.code, message, exitCode: failure.exitCode }), 'json')}\n`);
    return failure.exitCode;
  };
  const usage = (message: string, code: CliErrorRecord['code'] = 'usage_error') => fail(failureRecord(code, 2, message));
  const [first, second] = argv;
  if (first === undefined) {
    io.stderr.write(shortUsage(await loadCommands()));
    return 2;
  }
  if (first === '--version' || first === '-V' || first === '-v' || first === 'version') {
    io.stdout.write(`store-orders ${packageVersion()}\n`);
    return 0;
  }
  if (first === 'help' || isHelp(first)) return (await help(argv.slice(1), io)) ? 0 : usage(`no help for "${argv.slice(1).join(' ')}"; run store-orders --help`);

  const candidates = await loadCommandsStartingWith(first);
  const command = findCommand(candidates, first, second);
  if (command === undefined) {
    const group = groupCommands(candidates, first);
    if (group.length > 0 && isHelp(second)) {
      io.stdout.write(groupUsage(first, group));
      return 0;
    }
    if (group.length > 0 && (second === undefined || second.startsWith('-'))) {
      return usage(`${first} needs one of: ${group.map((c) => c.name.slice(first.length + 1)).join(', ')}; run store-orders ${first} --help`);
    }
    return usage(unknownCommand(await loadCommands(), first, group.length > 0 ? second : undefined), 'unknown_command');
  }

  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(command, argv.slice(command.name.split(' ').length));
  } catch (error) {
    return usage(named(command, oneLine(error)));
  }
  if (parsed.help) {
    io.stdout.write(commandUsage(command));
    return 0;
  }

  const { ConfigError, loadConfig } = await import('../config/config.js');
  let config: Config;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) return usage(`invalid configuration: ${error.problems.join('; ')}`, 'invalid_configuration');
    throw error;
  }
  // bin/store-orders starts tracing here (when the configuration asks for it): before anything below loads pg.
  await onConfig?.(config);

  const context = { config, values: parsed.values, args: parsed.args, io };
  if (command.kind !== 'database') {
    try {
      if (command.kind === 'server') await command.run({ ...context, serve });
      else await command.run({ ...context, print: createPrinter(io.stdout, parsed.values.json === true) });
      return 0;
    } catch (error) {
      return fail(failure(command, error));
    }
  }

  let container: Container;
  try {
    const { createContainer } = await import('../composition.js');
    // A command's metrics are never scraped: it ends before any scrape could come.
    container = createContainer(config, { registry: null });
    // The change has happened: a lost audit entry is a warning, not the command's failure.
    container.services.audit.onRecordFailed((error) => io.stderr.write(`warning: could not write the audit trail entry: ${escapeControls(oneLine(error))}\n`));
  } catch (error) {
    return fail(failureRecord('database_unavailable', 1, `cannot open the database: ${oneLine(error)}`));
  }
  try {
    // Every command works on a fresh database; `migrate` reports its own run.
    if (command.migrateFirst) await container.storage.migrate();
    await command.run({ ...context, container, print: createPrinter(io.stdout, parsed.values.json === true) });
    return 0;
  } catch (error) {
    return fail(failure(command, error));
  } finally {
    await container.close();
  }
}

/** `unknown command "mirgate"; did you mean migrate?`, over every command and group name. */
function unknownCommand(commands: readonly CliCommand[], first: string, groupSecond: string | undefined): string {
  const typed = groupSecond === undefined ? first : `${first} ${groupSecond}`;
  const groups = [...new Set(commands.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0] ?? ''))];
  const known = groupSecond === undefined ? [...commands.map((c) => c.name), ...groups] : groupCommands(commands, first).map((c) => c.name);
  return `unknown command "${typed}"${didYouMean(typed, known)}; run store-orders --help`;
}

/** `help`, `--help` or `help <command…>`; false when the topic is no command. */
async function help(topic: readonly string[], io: CliIo): Promise<boolean> {
  const [first, second] = topic;
  if (first === undefined) {
    // The environment variables come from the configuration schema, the one part of help that loads TypeBox.
    const { environmentHelp } = await import('../config/config-docs.js');
    io.stdout.write(fullUsage(await loadCommands(), environmentHelp()));
    return true;
  }
  const candidates = await loadCommandsStartingWith(first);
  const command = findCommand(candidates, first, second);
  const group = groupCommands(candidates, first);
  if (command !== undefined) io.stdout.write(commandUsage(command));
  else if (group.length > 0) io.stdout.write(groupUsage(first, group));
  return command !== undefined || group.length > 0;
}

/** A usage message prefixed with the command's name, unless it already starts with it. */
const named = (command: CliCommand, message: string) => (message.startsWith(command.name) ? message : `${command.name}: ${message}`);

function failure(command: CliCommand, error: unknown): CliErrorRecord {
  const described = describeFailure(error);
  return error instanceof UsageError ? { ...described, message: named(command, described.message) } : described;
}
