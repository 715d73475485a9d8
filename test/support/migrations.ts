import path from 'node:path';
import type { DatabaseConfig } from '../../src/config/config.js';
import { readMigrations } from '../../src/storage/migrations.js';
import { ROOT } from './process.js';
import { readSql, runSql } from './raw-sql.js';

/** What a first migrate of an empty database applies: every migration file of the dialect. */
export function allMigrations(kind: DatabaseConfig['kind']): { names: string[]; version: number } {
  const migrations = readMigrations(path.join(ROOT, 'migrations', kind));
  return { names: migrations.map((m) => m.name), version: Math.max(0, ...migrations.map((m) => m.version)) };
}

/**
 * Takes `config`'s migrated database back to the schema the release before
 * `version` left: an empty schema, then every migration before `version`,
 * applied and recorded as that release applied them (recorded at `at`). A
 * migration test then writes that release's rows and migrates. Returns how
 * many migrations were applied.
 */
export async function schemaBefore(config: DatabaseConfig, version: number, at: string): Promise<number> {
  if (config.kind === 'sqlite') {
    const tables = (await readSql(config, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).map((row) => String(row.name));
    await runSql(config, ['PRAGMA foreign_keys = OFF', ...tables.map((table) => `DROP TABLE ${table}`)]);
  } else {
    await runSql(config, 'DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  }
  const before = readMigrations(path.join(ROOT, 'migrations', config.kind)).filter((migration) => migration.version < version);
  await runSql(config, [
    `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at ${config.kind === 'sqlite' ? 'TEXT' : 'timestamptz'} NOT NULL)`,
    ...before.flatMap((migration) => [migration.sql, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${migration.version}, '${migration.name}', '${at}')`]),
  ]);
  return before.length;
}
