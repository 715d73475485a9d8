import type { User } from '../../users/users-repository.js';
import { portalOrigin } from '../../hosts/portal/portal-origin.js';
import type { Config } from '../../config/config.js';
import { CommandFailed } from '../cli-errors.js';
import { isMemberRole } from '../../users/team/member-roles.js';
import { accountIdOption, JSON_OPTION } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';
import { databaseAssignment } from '../../shared/shell-hint.js';

const userJson = (u: User) => ({ id: u.id, email: u.email, accountId: u.accountId, createdAt: u.createdAt, disabledAt: u.disabledAt ?? null });

const EMAIL = { name: 'email', description: 'The portal user\'s email' };

/** A portal link for the operator to hand over: PORTAL_PUBLIC_URL, or the portal's default address. */
function portalLink(config: Config, path: string, token: string): string {
  return `${portalOrigin(config.portal, config.host)}${path}?${new URLSearchParams({ [path === '/sign-up' ? 'invite' : 'token']: token }).toString()}`;
}

/** The hint names the database the command ran on, so that it works pasted into the same shell (shared/shell-hint.ts). */
function noSuchUser(email: string, config: Config, cwd: string): CommandFailed {
  return new CommandFailed(`no portal user has the email ${JSON.stringify(email)} (see: ${databaseAssignment(config.database, cwd)}store-orders users list)`);
}

export const usersCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'users list',
    summary: 'List the portal\'s users (never their passwords)',
    options: JSON_OPTION,
    migrateFirst: true,
    async run({ container, print }) {
      const users = await container.services.users.listUsers();
      print.result(
        { users: users.map(userJson) },
        users.length === 0
          ? 'No users.'
          : users.map((u) => `${u.id}\t${u.email}\taccount ${u.accountId}\tcreated ${u.createdAt}${u.disabledAt ? `\tdisabled ${u.disabledAt}` : ''}`).join('\n'),
      );
    },
  },
  {
    kind: 'database',
    name: 'users disable',
    summary: 'Disable a portal user: their sessions end at once and they cannot sign in',
    positionals: [EMAIL],
    options: JSON_OPTION,
    migrateFirst: true,
    async run({ container, config, io, args, print }) {
      const email = args[0] ?? '';
      const user = await container.services.users.disableUser(email);
      if (user === undefined) throw noSuchUser(email, config, io.cwd);
      // In every account the user belongs to (docs/audit.md, "Which account").
      await container.services.team.recordForUser(user.id, { actor: { kind: 'operator' }, action: 'user_disabled', target: { kind: 'user', id: String(user.id) } });
      print.result(userJson(user), `Disabled ${user.email}; their portal sessions have ended.`);
    },
  },
  {
    kind: 'database',
    name: 'users invite',
    summary: 'Print a one-time sign-up link (valid 7 days) that joins an account',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account the new user joins', required: true },
      role: { type: 'string', value: '<role>', description: 'Their role in it: owner (the default), developer or viewer' },
      ...JSON_OPTION,
    },
    details: [
      'The link works once, also when PORTAL_SIGNUP=closed, for whoever holds it (a new user signs up with it; a signed-in user joins with it). Only its hash is stored: it cannot be shown again.',
      'The role defaults to owner: until roles existed, everyone who joined an account could do everything in it.',
    ],
    migrateFirst: true,
    async run({ container, config, values, print }) {
      const accountId = accountIdOption(values);
      const role = values.role ?? 'owner';
      if (!isMemberRole(role)) throw new CommandFailed(`--role must be owner, developer or viewer, not ${JSON.stringify(role)}`);
      await container.services.accounts.requireLiveAccount(accountId);
      const { token, invitation } = await container.services.team.inviteByOperator(accountId, role);
      const link = portalLink(config, '/sign-up', token);
      const { expiresAt } = invitation;
      print.result({ accountId, role, link, expiresAt }, `Sign-up link for account ${accountId} as ${role} (one use, valid until ${expiresAt}):\n\n  ${link}\n`);
    },
  },
  {
    kind: 'database',
    name: 'users reset-password',
    summary: 'Print a one-time password-reset link (valid 1 hour) for a portal user',
    positionals: [EMAIL],
    options: JSON_OPTION,
    details: ['Setting the new password ends every session of the user. Emails are not verified or sent: hand the link over yourself.'],
    migrateFirst: true,
    async run({ container, config, io, args, print }) {
      const email = args[0] ?? '';
      const reset = await container.services.users.createPasswordReset(email);
      if (reset === undefined) throw noSuchUser(email, config, io.cwd);
      const link = portalLink(config, '/reset-password', reset.token);
      print.result(
        { userId: reset.user.id, email: reset.user.email, link, expiresAt: reset.expiresAt },
        `Password-reset link for ${reset.user.email} (one use, valid until ${reset.expiresAt}):\n\n  ${link}\n`,
      );
    },
  },
  {
    kind: 'database',
    name: 'users two-step-off',
    summary: "Turn a portal user's two-step sign-in off (a lost phone and lost recovery codes)",
    positionals: [EMAIL],
    options: JSON_OPTION,
    details: [
      'Their authenticator app and recovery codes are deleted: the password alone signs them in again, and they can set two-step sign-in up anew in Settings. Check who is asking first: this removes a factor.',
    ],
    migrateFirst: true,
    async run({ container, config, io, args, print }) {
      const email = args[0] ?? '';
      const user = await container.services.users.findUserByEmail(email);
      if (user === undefined) throw noSuchUser(email, config, io.cwd);
      const wasOn = await container.services.twoStep.turnOff(user.id);
      if (wasOn) await container.services.team.recordForUser(user.id, { actor: { kind: 'operator' }, action: 'authn_two_step_disabled', target: { kind: 'user', id: String(user.id) } });
      print.result({ ...userJson(user), twoStepWasOn: wasOn }, wasOn ? `Two-step sign-in is off for ${user.email}.` : `${user.email} had no two-step sign-in: nothing changed.`);
    },
  },
];
