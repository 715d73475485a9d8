/** Secrets the servers generate themselves and share through the database. */
export interface SecretsRepository {
  /**
   * The secret stored under `name`; when there is none yet, stores
   * `candidate` first. Processes racing on a fresh database all get the one
   * value that won the insert.
   */
  getOrCreate(name: string, candidate: string, createdAt: string): Promise<string>;
}
