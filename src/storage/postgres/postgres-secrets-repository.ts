import type { SecretsRepository } from '../../secrets/secrets-repository.js';
import type { Sql } from './postgres-sql.js';

export function createPostgresSecretsRepository(sql: Sql): SecretsRepository {
  return {
    async getOrCreate(name, candidate, createdAt) {
      await sql('INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, candidate, createdAt]);
      const [row] = await sql<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1', [name]);
      if (row === undefined) throw new Error(`server secret ${name} vanished`);
      return row.value;
    },
  };
}
