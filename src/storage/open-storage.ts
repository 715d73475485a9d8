import type { DatabaseConfig } from '../config/config.js';
import { openPostgresStorage } from './postgres/postgres-storage.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Storage } from './storage.js';

/**
 * Opens the adapter `config` names. Kept apart from storage.ts, which the
 * adapters import for the Storage contract, so that no import goes round in a
 * cycle.
 */
export function openStorage(config: DatabaseConfig): Storage {
  switch (config.kind) {
    case 'sqlite':
      return openSqliteStorage(config.path, { synchronous: config.synchronous });
    case 'postgres':
      return openPostgresStorage(config);
  }
}
