import type { Account } from '../../accounts/accounts-repository.js';
import { JSON_OPTION, requiredString } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

const accountJson = (a: Account) => ({ id: a.id, name: a.name, createdAt: a.createdAt });

export const accountsCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'accounts create',
    summary: 'Create an account',
    options: { name: { type: 'string', value: '<name>', description: 'The account\'s name', required: true }, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, print }) {
      const account = await container.services.accounts.createAccount({ name: requiredString(values, 'name') });
      print.result(accountJson(account), `Created account ${account.id} (${account.name}).`);
    },
  },
  {
    kind: 'database',
    name: 'accounts list',
    summary: 'List accounts',
    options: JSON_OPTION,
    migrateFirst: true,
    async run({ container, print }) {
      const accounts = await container.services.accounts.listAccounts();
      print.result(
        { accounts: accounts.map(accountJson) },
        accounts.length === 0 ? 'No accounts.' : accounts.map((a) => `${a.id}\t${a.name}\t${a.createdAt}`).join('\n'),
      );
    },
  },
];
