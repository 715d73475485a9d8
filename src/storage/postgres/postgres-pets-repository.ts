import { ConflictError, NotFoundError } from '../../errors/errors.js';
import type { NewPet, Pet, PetsRepository } from '../../pets/pets-repository.js';
import { INT64_MAX } from '../../shared/int64.js';
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

interface PetRow {
  id: bigint;
  account_id: bigint;
  name: string;
  created_at: string;
}

const COLUMNS = `id, account_id, name, ${isoTimestamp('created_at')}`;

/** As for orders: one more than the largest id below int64's maximum, like SQLite's rowid. */
const NEXT_ID = `(SELECT COALESCE(max(id), 0) + 1 FROM pets WHERE id < ${INT64_MAX})`;
const AUTO_ID_ATTEMPTS = 20;

const toPet = (row: PetRow): Pet => ({ id: row.id, accountId: Number(row.account_id), name: row.name, createdAt: row.created_at });

export function createPostgresPetsRepository(sql: Sql): PetsRepository {
  async function insert(pet: NewPet): Promise<Pet> {
    const [row] = await sql<PetRow>(
      `INSERT INTO pets (id, account_id, name, created_at) VALUES (${pet.id === undefined ? NEXT_ID : '$4'}, $1, $2, $3) RETURNING ${COLUMNS}`,
      [pet.accountId, pet.name, pet.createdAt, ...(pet.id === undefined ? [] : [pet.id])],
    );
    if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
    return toPet(row);
  }

  return {
    async create(pet) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await insert(pet);
        } catch (error) {
          const state = sqlState(error);
          // Two concurrent creates without an id may pick the same one; the loser tries again.
          if (state === UNIQUE_VIOLATION && pet.id === undefined && attempt < AUTO_ID_ATTEMPTS) continue;
          if (state === UNIQUE_VIOLATION) throw new ConflictError('pet_id_taken', `Pet id ${String(pet.id)} is already taken.`);
          if (state === FOREIGN_KEY_VIOLATION) throw new NotFoundError('account_not_found', `Account ${pet.accountId} does not exist.`);
          throw error;
        }
      }
    },
    async findForAccount(accountId, id) {
      const [row] = await sql<PetRow>(`SELECT ${COLUMNS} FROM pets WHERE id = $1 AND account_id = $2`, [id, accountId]);
      return row && toPet(row);
    },
  };
}
