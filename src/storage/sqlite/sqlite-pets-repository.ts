import type Database from 'better-sqlite3';
import { ConflictError, NotFoundError } from '../../errors/errors.js';
import type { Pet, PetsRepository } from '../../pets/pets-repository.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

interface PetRow {
  id: bigint;
  account_id: bigint;
  name: string;
  created_at: string;
}

const COLUMNS = 'id, account_id, name, created_at';

const toPet = (row: PetRow): Pet => ({ id: row.id, accountId: Number(row.account_id), name: row.name, createdAt: row.created_at });

export function createSqlitePetsRepository(db: Database.Database): PetsRepository {
  const sql = statementCache(db);
  return {
    async create(pet) {
      try {
        const row = sql(`INSERT INTO pets (id, account_id, name, created_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`)
          .get(pet.id ?? null, pet.accountId, pet.name, pet.createdAt) as PetRow;
        return toPet(row);
      } catch (error) {
        const constraint = sqliteConstraint(error);
        if (constraint === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new ConflictError('pet_id_taken', `Pet id ${String(pet.id)} is already taken.`);
        if (constraint === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', `Account ${pet.accountId} does not exist.`);
        throw error;
      }
    },
    async findForAccount(accountId, id) {
      const row = sql(`SELECT ${COLUMNS} FROM pets WHERE id = ? AND account_id = ?`).get(id, accountId) as PetRow | undefined;
      return row && toPet(row);
    },
  };
}
