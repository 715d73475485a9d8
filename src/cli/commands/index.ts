import { accountsCommands } from './accounts.js';
import { auditCommands } from './audit.js';
import { backupCommands } from './backup.js';
import type { CliCommand } from './command.js';
import { demoCommand } from './demo.js';
import { eventsCommands } from './events.js';
import { keysCommands } from './keys.js';
import { listenCommand } from './listen.js';
import { mailCommands } from './mail.js';
import { migrateCommand } from './migrate.js';
import { ordersImportCommand } from './orders-import.js';
import { ordersCommands } from './orders.js';
import { petsCommands } from './pets.js';
import { serveCommand } from './serve.js';
import { usersCommands } from './users.js';
import { webhooksCommands } from './webhooks.js';

/**
 * Every command, in the order `store-orders --help` lists them. The first,
 * listen (the store developer's local webhook loop), opens it with its example.
 */
export const COMMANDS: readonly CliCommand[] = [
  listenCommand,
  serveCommand,
  migrateCommand,
  ...backupCommands,
  ...accountsCommands,
  ...keysCommands,
  ...ordersCommands,
  ordersImportCommand,
  ...petsCommands,
  ...usersCommands,
  ...auditCommands,
  ...eventsCommands,
  ...webhooksCommands,
  ...mailCommands,
  demoCommand,
];
