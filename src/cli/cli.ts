import { createContainer, type Container } from '../composition.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { AppError } from '../errors/errors.js';
import { parseCommandLine, UsageError, type ParsedCommandLine } from './cli-args.js';
import { commandUsage, fullUsage, groupUsage, shortUsage } from './cli-help.js';
import { CommandFailed, createPrinter, oneLine, type CliIo } from './cli-output.js';
import type { CliCommand, ServeFunction } from './commands/command.js';
import { COMMANDS } from './commands/index.js';

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

/** The commands of a group ("keys": keys create, keys list, ...). */
const groupCommands = (group: string) => COMMANDS.filter((command) => command.name.startsWith(`${group} `));

/** "keys create" as two words, else a one-word command ("migrate", "serve"). */
function findCommand(first: string, second: string | undefined): CliCommand | undefined {
  return COMMANDS.find((command) => command.name === `${first} ${second ?? ''}`) ?? COMMANDS.find((command) => command.name === first);
}

/**
 * Runs one CLI invocation and returns its exit code: 0 success, 1 the
 * command failed, 2 it was called wrongly (or the configuration is invalid).
 * Never prints a stack trace. Help never needs a valid configuration.
 */
export async function runCli(argv: readonly string[], io: CliIo, serve: ServeFunction): Promise<number> {
  const fail = (code: number, message: string) => {
    io.stderr.write(`store-orders: ${message}\n`);
    return code;
  };
  const [first, second] = argv;
  if (first === undefined) {
    io.stderr.write(shortUsage(COMMANDS));
    return 2;
  }
  if (first === 'help' || isHelp(first)) return help(argv.slice(1), io) ? 0 : fail(2, `no help for "${argv.slice(1).join(' ')}"; run store-orders --help`);

  const command = findCommand(first, second);
  if (command === undefined) {
    const group = groupCommands(first);
    if (group.length > 0 && isHelp(second)) {
      io.stdout.write(groupUsage(first, group));
      return 0;
    }
    if (group.length > 0 && second === undefined) {
      return fail(2, `${first} needs one of: ${group.map((c) => c.name.slice(first.length + 1)).join(', ')}; run store-orders ${first} --help`);
    }
    return fail(2, `unknown command "${second === undefined ? first : `${first} ${second}`}"; run store-orders --help`);
  }

  let parsed: ParsedCommandLine;
  try {
    parsed = parseCommandLine(command, argv.slice(command.name.split(' ').length));
  } catch (error) {
    return fail(2, named(command, oneLine(error)));
  }
  if (parsed.help) {
    io.stdout.write(commandUsage(command));
    return 0;
  }

  let config: Config;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) return fail(2, `invalid configuration: ${error.problems.join('; ')}`);
    throw error;
  }

  const context = { config, values: parsed.values, args: parsed.args, io };
  if (command.kind === 'server') {
    try {
      await command.run({ ...context, serve });
      return 0;
    } catch (error) {
      return fail(...failure(command, error));
    }
  }

  let container: Container;
  try {
    container = createContainer(config);
  } catch (error) {
    return fail(1, `cannot open the database: ${oneLine(error)}`);
  }
  try {
    // Every command works on a fresh database; `migrate` reports its own run.
    if (command.migrateFirst) await container.storage.migrate();
    await command.run({ ...context, container, print: createPrinter(io.stdout, parsed.values.json === true) });
    return 0;
  } catch (error) {
    return fail(...failure(command, error));
  } finally {
    await container.close();
  }
}

/** `help`, `--help` or `help <command…>`; false when the topic is no command. */
function help(topic: readonly string[], io: CliIo): boolean {
  const [first, second] = topic;
  if (first === undefined) {
    io.stdout.write(fullUsage(COMMANDS));
    return true;
  }
  const command = findCommand(first, second);
  const group = groupCommands(first);
  if (command !== undefined) io.stdout.write(commandUsage(command));
  else if (group.length > 0) io.stdout.write(groupUsage(first, group));
  return command !== undefined || group.length > 0;
}

/** A usage message prefixed with the command's name, unless it already starts with it. */
const named = (command: CliCommand, message: string) => (message.startsWith(command.name) ? message : `${command.name}: ${message}`);

function failure(command: CliCommand, error: unknown): [number, string] {
  if (error instanceof UsageError) return [2, named(command, error.message)];
  if (error instanceof CommandFailed || error instanceof AppError) return [1, error.message];
  return [1, `unexpected error: ${oneLine(error)}`];
}
