import path from 'node:path';
import type { DatabaseConfig } from '../config/config.js';

/** `text` as one POSIX shell word: as is when it holds nothing the shell reads, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * What a command printed as a hint (`./bin/store-orders keys create …`)
 * needs in front of it to reach the same database as the process printing
 * it, pasted into the shell that process was started from:
 * - nothing for DATABASE_URL's default (`./data/store.db` under `cwd`, where
 *   `./bin/store-orders` is run from too);
 * - `DATABASE_URL=<url> ` for another SQLite file or a PostgreSQL URL
 *   without a password;
 * - `DATABASE_URL="${DATABASE_URL:?…}" ` for a URL with a password, which is
 *   never printed (the greeting may reach a log): it works where the
 *   variable is exported (`npm run db:postgres` says `export DATABASE_URL=…`)
 *   and, where it is not, the shell refuses to run the command instead of
 *   letting it write to the default SQLite file.
 */
export function databaseAssignment(database: DatabaseConfig, cwd: string): string {
  if (database.kind === 'sqlite') return database.path === path.resolve(cwd, 'data', 'store.db') ? '' : `DATABASE_URL=${shellWord(`sqlite:${database.path}`)} `;
  let password = '';
  try {
    password = new URL(database.url).password;
  } catch {
    password = '';
  }
  return password === '' ? `DATABASE_URL=${shellWord(database.url)} ` : 'DATABASE_URL="${DATABASE_URL:?export DATABASE_URL as for the server}" ';
}
