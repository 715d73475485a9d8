/**
 * Shared pieces of the storage contract (test/contract/storage/*-contract.test.ts and
 * the files that declare CONTRACT_COVERS).
 */
import assert from 'node:assert/strict';
import type { DatabaseConfig } from '../../src/config/config.js';
import { AppError } from '../../src/errors/errors.js';
import { runSql } from './raw-sql.js';
import type { Storage } from '../../src/storage/storage.js';

/** The properties of Storage that hold a repository (not its kind or lifecycle methods). */
export type RepositoryName = {
  [K in keyof Storage]: Storage[K] extends (...args: never[]) => unknown ? never : Storage[K] extends object ? K : never;
}[keyof Storage];

/**
 * What a contract file declares it covers: per repository, the methods
 * whose documented behaviour its tests assert, on every backend. Typed, so a
 * renamed or deleted method fails the type check;
 * test/contract/storage/contract-coverage.test.ts fails when a method of a repository
 * interface is in no file's table.
 */
export type ContractCoverage = { readonly [R in RepositoryName]?: readonly (keyof Storage[R] & string)[] };

/** An assert.rejects predicate: an AppError with this code. */
export function rejectsWithCode(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}

/** `base` moved by `ms` milliseconds, as ISO 8601 UTC with milliseconds. */
export function isoPlus(base: string, ms: number): string {
  return new Date(Date.parse(base) + ms).toISOString();
}

/**
 * Makes every insert into `table` fail with "forced failure" (e.g. the
 * outbox or audit write of a change), from `arm` until `allow`.
 */
export function failInserts(config: DatabaseConfig, table: 'events' | 'audit_events'): { arm(): Promise<void>; allow(): Promise<void> } {
  return config.kind === 'sqlite'
    ? {
        arm: () => runSql(config, `CREATE TRIGGER forced_failure BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'forced failure'); END`),
        allow: () => runSql(config, 'DROP TRIGGER forced_failure'),
      }
    : {
        arm: () =>
          runSql(
            config,
            `CREATE FUNCTION forced_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$;
             CREATE TRIGGER forced_failure BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION forced_failure()`,
          ),
        allow: () => runSql(config, `DROP TRIGGER forced_failure ON ${table}; DROP FUNCTION forced_failure()`),
      };
}
