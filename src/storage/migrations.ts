import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}

/** The numbered migrations of one dialect (`0001-initial.sql`, ...), in order. */
export function readMigrations(dir: string): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}-[a-z0-9-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(0, -'.sql'.length),
      sql: readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** What migrating a database with `applied` versions to `migrations` does: the ones to apply, in order, and the version after. */
export interface MigrationPlan {
  pending: MigrationFile[];
  version: number;
}

/**
 * The one migration rule both adapters follow, inside the transaction (and
 * lock) each opens: apply every migration the database lacks, in number
 * order, each once; refuse a database whose schema is newer than this
 * program. The adapters only run the statements (migrateSqlite,
 * migratePostgres) and record each version in schema_migrations.
 */
export function planMigrations(migrations: readonly MigrationFile[], applied: Iterable<number>): MigrationPlan {
  const done = new Set(applied);
  const newestApplied = Math.max(0, ...done);
  const newestKnown = Math.max(0, ...migrations.map((migration) => migration.version));
  if (newestApplied > newestKnown) {
    throw new Error(`The database schema (version ${newestApplied}) is newer than this program knows (${newestKnown}); upgrade the program.`);
  }
  return { pending: migrations.filter((migration) => !done.has(migration.version)), version: Math.max(newestApplied, newestKnown) };
}
