import path from 'node:path';
import type { DatabaseConfig } from '../../src/config/config.js';
import { readMigrations } from '../../src/storage/migrations.js';
import { ROOT } from './process.js';

/** What a first migrate of an empty database applies: every migration file of the dialect. */
export function allMigrations(kind: DatabaseConfig['kind']): { names: string[]; version: number } {
  const migrations = readMigrations(path.join(ROOT, 'migrations', kind));
  return { names: migrations.map((m) => m.name), version: Math.max(0, ...migrations.map((m) => m.version)) };
}
