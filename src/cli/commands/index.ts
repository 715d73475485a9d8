import type { CliCommand } from './command.js';

/**
 * Where each command is declared, by its first word, in the order `store-orders
 * --help` lists them. A module is imported only when one of its commands
 * runs (or help lists them all): loading every command and what they import
 * made `store-orders --version` take seconds. The first, listen (the store
 * developer's local webhook loop), opens the help with its example.
 * test/cli/cli-startup.test.ts checks that every command a module declares
 * starts with one of its words.
 */
export const COMMAND_MODULES: readonly { readonly words: readonly string[]; load(): Promise<readonly CliCommand[]> }[] = [
  { words: ['listen'], load: async () => [(await import('./listen.js')).listenCommand] },
  { words: ['serve'], load: async () => [(await import('./serve.js')).serveCommand] },
  { words: ['migrate'], load: async () => [(await import('./migrate.js')).migrateCommand] },
  { words: ['backup', 'restore'], load: async () => (await import('./backup.js')).backupCommands },
  { words: ['accounts'], load: async () => (await import('./accounts.js')).accountsCommands },
  { words: ['keys'], load: async () => (await import('./keys.js')).keysCommands },
  { words: ['orders'], load: async () => (await import('./orders.js')).ordersCommands },
  { words: ['orders'], load: async () => [(await import('./orders-import.js')).ordersImportCommand] },
  { words: ['pets'], load: async () => (await import('./pets.js')).petsCommands },
  { words: ['users'], load: async () => (await import('./users.js')).usersCommands },
  { words: ['audit'], load: async () => (await import('./audit.js')).auditCommands },
  { words: ['events'], load: async () => (await import('./events.js')).eventsCommands },
  { words: ['webhooks'], load: async () => (await import('./webhooks.js')).webhooksCommands },
  { words: ['mail'], load: async () => (await import('./mail.js')).mailCommands },
  { words: ['demo'], load: async () => [(await import('./demo.js')).demoCommand] },
];

/** Every command, in the order `store-orders --help` lists them (loads every command's module). */
export async function loadCommands(): Promise<readonly CliCommand[]> {
  return (await Promise.all(COMMAND_MODULES.map((module) => module.load()))).flat();
}

/** The commands whose name starts with `word` ("keys": keys create, keys list, …), loading only their modules; none for an unknown word. */
export async function loadCommandsStartingWith(word: string): Promise<readonly CliCommand[]> {
  const modules = COMMAND_MODULES.filter((module) => module.words.includes(word));
  return (await Promise.all(modules.map((module) => module.load()))).flat();
}
