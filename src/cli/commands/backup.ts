import path from 'node:path';
import { backupSqliteDatabase, restoreSqliteDatabase, SqliteBackupRefused } from '../../storage/sqlite/sqlite-backup.js';
import { JSON_OPTION } from '../cli-args.js';
import { CommandFailed } from '../cli-errors.js';
import type { FileCommand } from './command.js';

const FORCE_BACKUP = { force: { type: 'boolean', description: 'Overwrite <file> if it exists' } } as const;
const FORCE_RESTORE = {
  force: { type: 'boolean', description: 'Replace the database even while a process has it open (that process must be restarted at once)' },
} as const;

/** What PostgreSQL has instead; the URL stays in the operator's environment, never in our output. */
const POSTGRES_BACKUP =
  'backup copies a SQLite database, and DATABASE_URL names PostgreSQL: use pg_dump, e.g. pg_dump --format=custom --file=store.dump "$DATABASE_URL" (docs/operations.md)';
const POSTGRES_RESTORE =
  'restore replaces a SQLite database, and DATABASE_URL names PostgreSQL: use pg_restore into an empty database, e.g. pg_restore --no-owner --exit-on-error --dbname="$DATABASE_URL" store.dump (docs/operations.md)';

/** A refusal from the storage module in the operator's terms: exit 1 with its message. */
async function refusalsAsFailures<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SqliteBackupRefused) throw new CommandFailed(error.message);
    throw error;
  }
}

const backupCommand: FileCommand = {
  kind: 'file',
  name: 'backup',
  summary: 'Copy the SQLite database to a new file while servers keep running (an online, consistent snapshot)',
  positionals: [{ name: 'file', description: 'The backup file to write (its directory is created)' }],
  options: { ...FORCE_BACKUP, ...JSON_OPTION },
  details: [
    "SQLite's online backup API copies every page in one read transaction: every change committed before the command started is in the backup, servers keep reading and writing meanwhile. The backup is one self-contained file, checked with PRAGMA quick_check before it is put in place.",
    'On PostgreSQL it refuses (exit 1): use pg_dump (docs/operations.md).',
  ],
  async run({ config, values, args, io, print }) {
    if (config.database.kind !== 'sqlite') throw new CommandFailed(POSTGRES_BACKUP);
    const source = config.database.path;
    const target = path.resolve(io.cwd, args[0] ?? '');
    const report = await refusalsAsFailures(() => backupSqliteDatabase(source, target, { force: values.force === true }));
    print.result(report, `Backed up ${source} to ${report.file} (${report.bytes} bytes, schema version ${report.schemaVersion}); it holds every change committed before ${report.startedAt}.`);
  },
};

const restoreCommand: FileCommand = {
  kind: 'file',
  name: 'restore',
  summary: 'Replace the SQLite database with a backup, after checking it; refuses while a server uses the database',
  positionals: [{ name: 'file', description: 'A backup written by store-orders backup' }],
  options: { ...FORCE_RESTORE, ...JSON_OPTION },
  details: [
    'The backup is copied beside the database and checked first (PRAGMA integrity_check, a Store Orders schema no newer than this program), then swapped in with one rename; the database it replaces is kept as <database>.pre-restore-<time>.',
    'A database in use is detected with an exclusive lock attempt: every server connection holds a shared lock on the file while it is open, so the attempt fails at once. Stop every server first; with --force the running ones keep the replaced file open and must be restarted immediately.',
    'On PostgreSQL it refuses (exit 1): use pg_restore (docs/operations.md).',
  ],
  async run({ config, values, args, io, print }) {
    if (config.database.kind !== 'sqlite') throw new CommandFailed(POSTGRES_RESTORE);
    const database = config.database.path;
    const backup = path.resolve(io.cwd, args[0] ?? '');
    const report = await refusalsAsFailures(() => restoreSqliteDatabase(backup, database, { force: values.force === true }));
    const lines = [`Restored ${report.backup} (schema version ${report.schemaVersion}) into ${report.database}.`];
    if (report.replacedKeptAs !== undefined) lines.push(`The database it replaced is kept as ${report.replacedKeptAs}.`);
    if (report.schemaVersion < report.programSchemaVersion) lines.push(`serve (or migrate) upgrades it to schema version ${report.programSchemaVersion}.`);
    if (report.wasInUse) lines.push('A process had the database open: restart every server now, or it keeps writing to the replaced file.');
    print.result(report, lines.join('\n'));
  },
};

export const backupCommands: readonly FileCommand[] = [backupCommand, restoreCommand];
