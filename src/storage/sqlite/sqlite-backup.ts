import { closeSync, constants, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from './sqlite-driver.js';
import { sqliteSchemaVersion } from './sqlite-storage.js';

/** A backup or restore that must not go ahead; the message says why and what to do instead. */
export class SqliteBackupRefused extends Error {}

export interface SqliteBackupReport {
  readonly file: string;
  readonly bytes: number;
  readonly pages: number;
  readonly schemaVersion: number;
  /** Every commit acknowledged before this instant is in the backup. */
  readonly startedAt: string;
  readonly finishedAt: string;
}

export interface SqliteRestoreReport {
  readonly database: string;
  readonly backup: string;
  readonly schemaVersion: number;
  /** The version `serve`/`migrate` bring it to; above schemaVersion when the backup is older than the program. */
  readonly programSchemaVersion: number;
  /** Where the database it replaced is kept (a hard link where the filesystem allows); absent when there was none. */
  readonly replacedKeptAs?: string;
  /** A process had the database open and --force replaced it anyway. */
  readonly wasInUse: boolean;
}

/** Every page in one step: one read transaction, so the copy is one snapshot even while servers write. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the live database `source` to `target` with SQLite's online backup
 * API while servers keep running (WAL readers never block writers). The copy
 * is written beside `target`, checked, made a single self-contained file
 * (rollback journal, no -wal) and flushed, then put in place: without
 * `force` by link(2) (or an exclusive copy), which fails if `target`
 * appeared meanwhile.
 */
export async function backupSqliteDatabase(source: string, target: string, { force }: { force: boolean }): Promise<SqliteBackupReport> {
  if (!existsSync(source)) throw new SqliteBackupRefused(`there is no database at ${source}`);
  if (path.resolve(source) === path.resolve(target)) throw new SqliteBackupRefused('the backup file must not be the database itself');
  if (!force && existsSync(target)) throw new SqliteBackupRefused(`${target} already exists; choose a new file or give --force to overwrite it`);
  mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  removeWithSidecars(partial);
  try {
    const db = new Database(source, { fileMustExist: true });
    const startedAt = new Date().toISOString();
    try {
      await db.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      db.close();
    }
    const { schemaVersion, pages } = withDatabase(partial, (copy) => {
      copy.pragma('journal_mode = DELETE');
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new SqliteBackupRefused(`the copy fails PRAGMA quick_check (${String(check)}); nothing was written`);
      return { schemaVersion: recordedSchemaVersion(copy) ?? 0, pages: Number(copy.pragma('page_count', { simple: true })) };
    });
    flush(partial);
    if (force) {
      renameSync(partial, target);
    } else {
      try {
        linkOrCopy(partial, target);
      } catch (error) {
        if (isErrno(error, 'EEXIST')) throw new SqliteBackupRefused(`${target} already exists; choose a new file or give --force to overwrite it`);
        throw error;
      }
    }
    flush(path.dirname(target));
    return { file: target, bytes: statSync(target).size, pages, schemaVersion, startedAt, finishedAt: new Date().toISOString() };
  } finally {
    removeWithSidecars(partial);
  }
}

/**
 * Replaces the database at `database` with the backup `backup`, after
 * checking a copy of it (PRAGMA integrity_check, a schema this program can
 * run). Refuses while a process has the database open, unless `force`.
 * The swap is one rename(2); the database it replaces stays reachable as
 * `<database>.pre-restore-<time>`.
 */
export function restoreSqliteDatabase(backup: string, database: string, { force }: { force: boolean }): SqliteRestoreReport {
  if (!existsSync(backup)) throw new SqliteBackupRefused(`there is no backup at ${backup}`);
  if (path.resolve(backup) === path.resolve(database)) throw new SqliteBackupRefused('the backup is the database itself');
  if (existsSync(`${backup}-wal`) && statSync(`${backup}-wal`).size > 0) {
    throw new SqliteBackupRefused(`${backup} has a -wal file beside it, so the file alone is not the whole database; make backups with store-orders backup`);
  }
  mkdirSync(path.dirname(database), { recursive: true });
  const incoming = `${database}.restore-${process.pid}`;
  removeWithSidecars(incoming);
  try {
    copyFileSync(backup, incoming);
    const schemaVersion = verifiedSchemaVersion(incoming, backup);
    flush(incoming);
    const wasInUse = existsSync(database) && isInUse(database);
    if (wasInUse && !force) {
      throw new SqliteBackupRefused(
        `${database} is in use (a server or another process has it open); stop every process using it first, or give --force to replace it under them`,
      );
    }
    let replacedKeptAs: string | undefined;
    if (existsSync(database)) {
      replacedKeptAs = `${database}.pre-restore-${new Date().toISOString().replace(/[:.]/g, '')}`;
      linkOrCopy(database, replacedKeptAs);
    }
    // A -wal left beside the new file would be replayed into it: it belongs to the database being replaced.
    for (const sidecar of ['-wal', '-shm', '-journal']) rmSync(`${database}${sidecar}`, { force: true });
    renameSync(incoming, database);
    flush(path.dirname(database));
    return {
      database,
      backup,
      schemaVersion,
      programSchemaVersion: sqliteSchemaVersion(),
      ...(replacedKeptAs === undefined ? {} : { replacedKeptAs }),
      wasInUse,
    };
  } finally {
    removeWithSidecars(incoming);
  }
}

/**
 * Whether another connection has `file` open. Every WAL-mode connection
 * that has read the database (a server reads it at start) holds a shared
 * lock on it for as long as it stays open, idle or not; a connection in
 * EXCLUSIVE locking mode cannot begin an exclusive transaction past that
 * lock, and with no busy timeout it says SQLITE_BUSY at once instead of
 * waiting. When nobody else has it open, closing this connection
 * checkpoints the WAL into the file, so the database kept as
 * pre-restore is complete.
 */
function isInUse(file: string): boolean {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    const code = error instanceof Database.SqliteError ? error.code : '';
    // Anything else (a corrupt or foreign file) is no reason to keep it: it is what a restore replaces.
    return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
  } finally {
    db.close();
  }
}

/** The schema version recorded in `file`, once it passes integrity_check and this program can run it. */
function verifiedSchemaVersion(file: string, shownAs: string): number {
  try {
    return withDatabase(file, (db) => {
      const problems = db.pragma('integrity_check(5)', { simple: false }) as { integrity_check: string }[];
      const messages = problems.map((row) => row.integrity_check);
      if (messages.join() !== 'ok') throw new SqliteBackupRefused(`${shownAs} fails PRAGMA integrity_check: ${messages.join('; ')}`);
      const version = recordedSchemaVersion(db);
      if (version === undefined) throw new SqliteBackupRefused(`${shownAs} is not a Store Orders database (no schema_migrations table)`);
      const known = sqliteSchemaVersion();
      if (version > known) {
        throw new SqliteBackupRefused(`${shownAs} has schema version ${version}, newer than this program knows (${known}); restore it with the program that wrote it`);
      }
      // The restored file is then one self-contained file, even if a WAL-mode copy was given.
      db.pragma('journal_mode = DELETE');
      return version;
    });
  } catch (error) {
    if (error instanceof Database.SqliteError && /^SQLITE_(NOTADB|CORRUPT)/.test(error.code)) {
      throw new SqliteBackupRefused(`${shownAs} is not a readable SQLite database (${error.code})`);
    }
    throw error;
  }
}

/** The newest migration recorded, or undefined when the file has no migrations table (not one of our databases). */
function recordedSchemaVersion(db: BetterSqlite3.Database): number | undefined {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (table === undefined) return undefined;
  const version: unknown = db.prepare('SELECT max(version) FROM schema_migrations').pluck().get();
  return typeof version === 'number' || typeof version === 'bigint' ? Number(version) : undefined;
}

function withDatabase<T>(file: string, use: (db: BetterSqlite3.Database) => T): T {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** fsync(2) a file or directory, so a rename or link that follows is durable with its content. */
function flush(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A second name for `from` (hard link: instant, no space), or a copy where
 * the filesystem has no hard links; either fails with EEXIST if `to` exists.
 */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    if (!isErrno(error, 'EPERM') && !isErrno(error, 'ENOTSUP') && !isErrno(error, 'EOPNOTSUPP')) throw error;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
  }
}

function removeWithSidecars(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    try {
      unlinkSync(`${file}${suffix}`);
    } catch (error) {
      if (!isErrno(error, 'ENOENT')) throw error;
    }
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
