import type { AuditEntry } from '../../audit/audit-repository.js';
import { toAuditEventRecord } from '../../audit/audit-routes.js';
import { AUDIT_LIMIT_DEFAULT, AUDIT_LIMIT_MAX } from '../../audit/audit-service.js';
import { databaseAssignment } from '../../shared/shell-hint.js';
import { accountIdOption, JSON_OPTION, optionalString, positiveInteger } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

/** One entry on one line: time, action, who, from where, on what, details. */
function auditLine(entry: AuditEntry): string {
  const actor = entry.actor.kind === 'user' || entry.actor.kind === 'key' ? `${entry.actor.kind} ${entry.actor.id}` : entry.actor.kind;
  const details = Object.entries(entry.details).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return [
    entry.at,
    entry.action,
    actor,
    entry.address ?? '-',
    entry.target === undefined ? '-' : `${entry.target.kind} ${entry.target.id}`,
    ...(details.length === 0 ? [] : [details.join(' ')]),
  ].join('\t');
}

export const auditCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'audit list',
    summary: 'List an account\'s audit trail, newest first',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account whose audit trail to list', required: true },
      limit: { type: 'string', value: '<n>', description: `How many entries, 1 to ${AUDIT_LIMIT_MAX} (default ${AUDIT_LIMIT_DEFAULT})` },
      cursor: { type: 'string', value: '<cursor>', description: 'Continue after a previous page (its nextCursor)' },
      ...JSON_OPTION,
    },
    details: [
      'Each line: time, action, actor (user, key, operator or system, with its id), client address, target, details.',
      'Entries older than AUDIT_RETENTION_DAYS (default 90) are deleted by the server.',
    ],
    migrateFirst: true,
    async run({ config, container, values, io, print }) {
      const accountId = accountIdOption(values);
      // An empty trail would read as "nothing happened", which is a different fact from "no such account".
      await container.services.accounts.requireAccount(accountId);
      const limitText = optionalString(values, 'limit');
      const cursor = optionalString(values, 'cursor');
      const page = await container.services.audit.list(accountId, {
        ...(limitText === undefined ? {} : { limit: positiveInteger(limitText, '--limit') }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      const lines = page.entries.map(auditLine);
      if (page.nextCursor !== null) lines.push(`More: ${databaseAssignment(config.database, io.cwd)}store-orders audit list --account ${accountId} --cursor ${page.nextCursor}`);
      print.result(
        { data: page.entries.map(toAuditEventRecord), nextCursor: page.nextCursor },
        page.entries.length === 0 ? 'No audit trail entries.' : lines.join('\n'),
      );
    },
  },
];
