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
