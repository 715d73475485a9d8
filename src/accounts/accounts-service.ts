import { NotFoundError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { checkText } from '../shared/user-text.js';
import type { Account, AccountsRepository } from './accounts-repository.js';

/** The longest account (store) name; the portal's sign-up applies the same bound. */
export const ACCOUNT_NAME_MAX = 200;

export function createAccountsService({ accountsRepository, clock }: { accountsRepository: AccountsRepository; clock: Clock }) {
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

    /** The account, or NotFoundError('account_not_found'): for operators naming an account that may not exist. */
    async requireAccount(accountId: number): Promise<Account> {
      const account = await accountsRepository.findById(accountId);
      if (account === undefined) throw new NotFoundError('account_not_found', `Account ${accountId} does not exist.`);
      return account;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
