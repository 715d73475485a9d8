import { NotFoundError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkText } from '../shared/user-text.js';
import type { AuditContext } from '../audit/audit-repository.js';
import { roleAllows, type MemberRole } from '../users/team/member-roles.js';
import type { Account, AccountDeletionSummary, AccountsRepository } from './accounts-repository.js';

/** The longest account (store) name; the portal's sign-up applies the same bound. */
export const ACCOUNT_NAME_MAX = 200;

/** What a deleted account's webhook endpoints show as the reason they were disabled. */
const ENDPOINT_REASON = 'The account was deleted.';

/** Who deletes an account: one of its owners, signed in (the portal), or the operator (the CLI). */
export type AccountDeleter = { kind: 'member'; userId: number; role: MemberRole; audit: AuditContext } | { kind: 'operator' };

export type AccountDeletionRefusal = { ok: false; reason: 'forbidden' | 'not_found' | 'name_mismatch'; message: string };

/** Whether `typed` names the account as a deletion's confirmation must: its name as it is, surrounding spaces aside (case counts). */
export function confirmsAccountName(account: Pick<Account, 'name'>, typed: string): boolean {
  return typed.trim() === account.name;
}

const NOT_OWNER: AccountDeletionRefusal = { ok: false, reason: 'forbidden', message: 'Only an owner of this account can delete it. Ask an owner.' };

export function createAccountsService({
  accountsRepository,
  clock,
  keysRevoked,
}: {
  accountsRepository: AccountsRepository;
  clock: Clock;
  /** Called after a deletion revoked keys: this process's key lookups forget what they knew (api-key-cache.ts). */
  keysRevoked: () => void;
}) {
  async function requireAccount(accountId: number): Promise<Account> {
    const account = await accountsRepository.findById(accountId);
    if (account === undefined) throw new NotFoundError('account_not_found', `Account ${accountId} does not exist.`);
    return account;
  }

  return {
    /** Creates an account: one store's owner, the tenant of keys and orders. */
    async createAccount(input: { name: string }): Promise<Account> {
      const name = input.name.trim();
      checkText('Account name', name, { min: 1, max: ACCOUNT_NAME_MAX });
      return accountsRepository.create({ name, createdAt: clock.now().toISOString() });
    },

    async listAccounts(): Promise<Account[]> {
      return accountsRepository.list();
    },

    /** The account, deleted or not, or NotFoundError('account_not_found'): for operators naming an account that may not exist. */
    requireAccount,

    /** The account while it is not deleted, else NotFoundError('account_not_found'): for the operator's commands that would let someone act in it (invitations, webhook endpoints). */
    async requireLiveAccount(accountId: number): Promise<Account> {
      const account = await requireAccount(accountId);
      if (account.deletedAt !== undefined) throw new NotFoundError('account_not_found', `Account ${accountId} was deleted at ${account.deletedAt}.`);
      return account;
    },

    /**
     * Deletes an account (docs/portal.md, "Deleting an account"): refused
     * unless `by` is one of its owners (or the operator) and `typedName` is
     * the account's name as it is (surrounding spaces aside). Storage does
     * it in one transaction (AccountsRepository.delete: keys revoked,
     * memberships, sessions and invitations ended, endpoints disabled, the
     * `account_deleted` entry written) and checks the owner again there.
     */
    async deleteAccount(accountId: number, by: AccountDeleter, typedName: string): Promise<{ ok: true; account: Account; ended: AccountDeletionSummary } | AccountDeletionRefusal> {
      if (by.kind === 'member' && !roleAllows(by.role, 'owner')) return NOT_OWNER;
      const account = await accountsRepository.findById(accountId);
      if (account === undefined || account.deletedAt !== undefined) return { ok: false, reason: 'not_found', message: `Account ${accountId} does not exist, or was deleted already.` };
      if (!confirmsAccountName(account, typedName)) return { ok: false, reason: 'name_mismatch', message: `Type the store's name, ${account.name}, exactly as it is shown to confirm.` };
      const at = clock.now().toISOString();
      const actor = by.kind === 'member' ? by.audit : { actor: { kind: 'operator' } as const };
      const outcome = await accountsRepository.delete({
        accountId,
        at,
        ...(by.kind === 'member' ? { byOwner: by.userId } : {}),
        audit: { ...actor, accountId, at, action: 'account_deleted', details: { name: account.name } },
        endpointReason: ENDPOINT_REASON,
      });
      if (outcome === 'not_owner') return NOT_OWNER;
      if (outcome === 'not_found') return { ok: false, reason: 'not_found', message: `Account ${accountId} was deleted already.` };
      if (outcome.keysRevoked > 0) keysRevoked();
      return { ok: true, account: { ...account, deletedAt: at }, ended: outcome };
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
