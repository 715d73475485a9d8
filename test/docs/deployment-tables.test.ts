import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/process.js';
import { readSql } from '../support/raw-sql.js';
import { postgresBackend, sqliteBackend } from '../support/storage.js';

/** The table names DEPLOYMENT.md's "Tables" section lists for a dialect, one row each ("SQLite only: …", "PostgreSQL only: …" for one of them). */
function documentedTables(kind: 'sqlite' | 'postgres'): string[] {
  const text = readFileSync(path.join(ROOT, 'DEPLOYMENT.md'), 'utf8');
  const start = text.indexOf('\n## Tables\n');
  assert.notEqual(start, -1, 'DEPLOYMENT.md has a "Tables" section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end === -1 ? undefined : end);
  const other = kind === 'sqlite' ? 'PostgreSQL only:' : 'SQLite only:';
  return [...section.matchAll(/^\| `([a-z_]+)` \| ([^|]*)\|/gm)]
    .filter((m) => !(m[2] ?? '').startsWith(other))
    .map((m) => m[1] ?? '')
    .sort();
}

const TABLES_QUERY = {
  sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
  postgres: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
} as const;

for (const backend of [sqliteBackend, postgresBackend]) {
  test(`when a ${backend.name} database is migrated, then DEPLOYMENT.md lists exactly its tables`, async (t) => {
    const { config } = await backend.freshDatabase(t);
    const rows = await readSql(config, TABLES_QUERY[config.kind]);
    const actual = rows.map((row) => String(row.name)).sort();
    assert.ok(actual.includes('orders') && actual.includes('schema_migrations'), `a migrated database: ${actual.join(', ')}`);
    assert.deepEqual(documentedTables(config.kind), actual);
  });
}
