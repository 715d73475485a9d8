import type { Container } from '../../composition.js';
import type { Config } from '../../config/config.js';
import type { CliOptions, CliPositional, OptionValues } from '../cli-args.js';
import type { CliIo, Printer } from '../cli-output.js';

/**
 * What every command declares once: its name ("keys create"), a summary,
 * its options with descriptions and its positionals. Parsing, the required
 * checks, `store-orders --help` and `store-orders <command> --help` are all
 * generated from these declarations (cli-args.ts, cli-help.ts).
 */
interface CommandDeclaration {
  readonly name: string;
  readonly summary: string;
  readonly options: CliOptions;
  /** Required positionals, in order. */
  readonly positionals?: readonly CliPositional[];
  /** Further paragraphs for the command's own --help. */
  readonly details?: readonly string[];
  /** A typical invocation, shown in its --help (and the first command's at the top of store-orders --help). */
  readonly example?: string;
}

interface CommandContext {
  readonly config: Config;
  readonly values: OptionValues;
  readonly args: readonly string[];
  readonly io: CliIo;
}

export type ServeFunction = (config: Config, options: { workers: number }) => Promise<void>;

/** A command over the database: the dispatcher opens it (and migrates it first, unless told not to) and closes it. */
export interface DatabaseCommand extends CommandDeclaration {
  readonly kind: 'database';
  /** false for `migrate`, which reports its own run. */
  readonly migrateFirst: boolean;
  run(context: CommandContext & { readonly container: Container; readonly print: Printer }): Promise<void>;
}

/** `serve`: runs the server process itself, given the configuration. */
export interface ServerCommand extends CommandDeclaration {
  readonly kind: 'server';
  run(context: CommandContext & { readonly serve: ServeFunction }): Promise<void>;
}

/**
 * A command that works on the database's files itself (backup, restore): the
 * dispatcher opens nothing, so no connection of its own holds the file and
 * nothing is migrated.
 */
export interface FileCommand extends CommandDeclaration {
  readonly kind: 'file';
  run(context: CommandContext & { readonly print: Printer }): Promise<void>;
}

/**
 * A command that works against a running server over HTTP, as a store
 * developer with their API key (listen): the dispatcher opens no database.
 */
export interface ClientCommand extends CommandDeclaration {
  readonly kind: 'client';
  run(context: CommandContext & { readonly print: Printer }): Promise<void>;
}

export type CliCommand = DatabaseCommand | ServerCommand | FileCommand | ClientCommand;
