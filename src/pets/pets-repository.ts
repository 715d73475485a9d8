/** A pet as stored. `id` is int64 and therefore bigint. */
export interface Pet {
  id: bigint;
  accountId: number;
  name: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

export interface NewPet {
  /** Chosen by storage when absent. */
  id?: bigint;
  accountId: number;
  name: string;
  createdAt: string;
}

/** Storage of pets. Adapters live in src/storage/<database>/. */
export interface PetsRepository {
  /**
   * Throws NotFoundError('account_not_found') for an unknown account and
   * ConflictError('pet_id_taken') when `id` is already used.
   */
  create(pet: NewPet): Promise<Pet>;
  /** The pet with this id if it belongs to the account. */
  findForAccount(accountId: number, id: bigint): Promise<Pet | undefined>;
}
