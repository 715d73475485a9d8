export interface Account {
  id: number;
  name: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export interface NewAccount {
  name: string;
  createdAt: string;
}

/** Storage of accounts. Adapters live in src/storage/<database>/. */
export interface AccountsRepository {
  create(account: NewAccount): Promise<Account>;
  /** All accounts, by id. */
  list(): Promise<Account[]>;
  findById(id: number): Promise<Account | undefined>;
}
