import { MAIL_STATUSES, type MailRecord, type MailStatus } from '../../mail/mail-repository.js';
import { MAIL_LIST_MAX } from '../../mail/mail-service.js';
import { CommandFailed } from '../cli-errors.js';
import { JSON_OPTION, optionalString, positiveInteger, UsageError, type OptionValues } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';
import { databaseAssignment } from '../../shared/shell-hint.js';

const LIST_DEFAULT = 50;

function statusOption(values: OptionValues): MailStatus | undefined {
  const status = optionalString(values, 'status');
  if (status !== undefined && !(MAIL_STATUSES as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${MAIL_STATUSES.join(', ')}`);
  return status as MailStatus | undefined;
}

/** Its state in words: `sent (outbox)`, `pending, next attempt 2026-…`, `failed`. */
function stateOf(mail: MailRecord): string {
  if (mail.status === 'sent') return `sent (${mail.channel ?? 'smtp'}) ${mail.sentAt ?? ''}`.trimEnd();
  if (mail.status === 'pending' && mail.attempts > 0) return `pending, next attempt ${mail.nextAttemptAt ?? ''}`.trimEnd();
  return mail.status;
}

/** One mail on one line: id, state, kind, recipient, attempts, created, and the last failure's reason. */
function mailLine(mail: MailRecord): string {
  const attempts = `${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'}`;
  return [mail.id, stateOf(mail), mail.kind, mail.recipient, attempts, `created ${mail.createdAt}`, ...(mail.lastError === undefined ? [] : [`last error: ${mail.lastError}`])].join('\t');
}

export const mailCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'mail list',
    summary: 'List outgoing mail, newest first: its state, attempts and last error (never its body)',
    options: {
      limit: { type: 'string', value: '<n>', description: `At most this many, 1 to ${MAIL_LIST_MAX} (default ${LIST_DEFAULT})` },
      status: { type: 'string', value: '<status>', description: `Only mail in this state: ${MAIL_STATUSES.join(', ')}` },
      to: { type: 'string', value: '<email>', description: 'Only mail to this address' },
      ...JSON_OPTION,
    },
    details: [
      'Each line: id, state (sent through smtp or kept in the outbox, pending with its next attempt, or failed once MAIL_RETRY_SCHEDULE is spent), kind, recipient, attempts, created, last error.',
      'Without SMTP_URL mail is kept in the database (the outbox): read one with store-orders mail show <id>.',
    ],
    migrateFirst: true,
    async run({ container, values, print }) {
      const limitText = optionalString(values, 'limit');
      const recipient = optionalString(values, 'to');
      const status = statusOption(values);
      const mail = await container.services.mail.list({
        limit: limitText === undefined ? LIST_DEFAULT : positiveInteger(limitText, '--limit'),
        ...(recipient === undefined ? {} : { recipient }),
        ...(status === undefined ? {} : { status }),
      });
      print.result({ mail }, mail.length === 0 ? 'No mail.' : mail.map(mailLine).join('\n'));
    },
  },
  {
    kind: 'database',
    name: 'mail show',
    summary: 'Show one mail: its headers, state and text part (--json adds the HTML part)',
    positionals: [{ name: 'id', description: 'The mail\'s id, as mail list shows it' }],
    options: JSON_OPTION,
    details: ['The body is kept encrypted in the database (its links carry one-time tokens); this opens it for you.'],
    migrateFirst: true,
    async run({ container, config, io, args, print }) {
      const id = args[0] ?? '';
      const found = await container.services.mail.show(id);
      if (found === undefined) throw new CommandFailed(`no mail has the id ${JSON.stringify(id)} (see: ${databaseAssignment(config.database, io.cwd)}store-orders mail list)`);
      const { mail, body } = found;
      const headers = [
        `From:    ${config.mail.from}`,
        `To:      ${mail.recipient}`,
        `Subject: ${mail.subject}`,
        `Kind:    ${mail.kind}`,
        `State:   ${stateOf(mail)} (${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'})`,
        `Created: ${mail.createdAt}`,
        ...(mail.lastError === undefined ? [] : [`Error:   ${mail.lastError}`]),
      ];
      print.result({ ...mail, from: config.mail.from, text: body.text, html: body.html }, `${headers.join('\n')}\n\n${body.text.trimEnd()}`);
    },
  },
];
