import type { Account } from '../../accounts/accounts-repository.js';
import { accountIdOption, JSON_OPTION, requiredString } from '../cli-args.js';
import { CommandFailed } from '../cli-errors.js';
import type { DatabaseCommand } from './command.js';

const accountJson = (a: Account) => ({ id: a.id, name: a.name, createdAt: a.createdAt, deletedAt: a.deletedAt ?? null });

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
        accounts.length === 0 ? 'No accounts.' : accounts.map((a) => `${a.id}\t${a.name}\t${a.createdAt}${a.deletedAt === undefined ? '' : `\tdeleted ${a.deletedAt}`}`).join('\n'),
      );
    },
  },
  {
    kind: 'database',
    name: 'accounts delete',
    summary: 'Delete an account: its keys, members, sessions, invitations and webhook endpoints end at once',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account to delete', required: true },
      name: { type: 'string', value: '<name>', description: 'Its name, typed to confirm (as accounts list shows it)', required: true },
      ...JSON_OPTION,
    },
    details: [
      'In one transaction: its API keys are revoked, its members removed (their other accounts are kept) with their sessions in it, its pending invitations revoked and its webhook endpoints disabled. Its orders, events and audit trail are kept (accounts list shows it deleted; audit list --account shows the account_deleted entry). It cannot be undone.',
    ],
    migrateFirst: true,
    async run({ container, values, print }) {
      const accountId = accountIdOption(values);
      const deleted = await container.services.accounts.deleteAccount(accountId, { kind: 'operator' }, requiredString(values, 'name'));
      if (!deleted.ok) throw new CommandFailed(deleted.message);
      const { account, ended } = deleted;
      print.result(
        { ...accountJson(account), ended },
        `Deleted account ${account.id} (${account.name}): ${ended.keysRevoked} keys revoked, ${ended.membersRemoved} members removed, ${ended.sessionsEnded} sessions ended, ${ended.invitationsRevoked} invitations revoked, ${ended.endpointsDisabled} webhook endpoints disabled.`,
      );
    },
  },
];
