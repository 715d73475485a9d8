import type Database from 'better-sqlite3';
import type { SecretsRepository } from '../../secrets/secrets-repository.js';
import { statementCache } from './sqlite-util.js';

export function createSqliteSecretsRepository(db: Database.Database): SecretsRepository {
  const sql = statementCache(db);
  return {
    async getOrCreate(name, candidate, createdAt) {
      sql('INSERT INTO server_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING').run(name, candidate, createdAt);
      return (sql('SELECT value FROM server_secrets WHERE name = ?').get(name) as { value: string }).value;
    },
  };
}
