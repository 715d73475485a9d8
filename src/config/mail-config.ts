import { parseRetrySchedule, parseSmtpUrl, type SmtpServer } from './config-formats.js';
import type { EnvironmentValues } from './config-schema.js';

/** Outgoing mail (docs/mail.md). */
export interface MailConfig {
  /** Where mail goes out (SMTP_URL, in parts; the password is never logged); null: it is kept in the local outbox. */
  readonly smtp: SmtpServer | null;
  /** The From of every mail (MAIL_FROM). */
  readonly from: string;
  /** One attempt's bound, all of it. */
  readonly timeoutMs: number;
  /** Delay before each retry, in ms; after the last the mail is `failed`. */
  readonly retryScheduleMs: readonly number[];
  readonly pollIntervalMs: number;
  /** Encrypts queued mail at rest; undefined: a key generated once and kept in the database. Never logged. */
  readonly secretsKey?: string;
}

/** Outgoing mail from the accepted values. */
export function mailFrom(values: EnvironmentValues['mail']): MailConfig {
  const smtp = values.SMTP_URL === undefined ? null : parseSmtpUrl(values.SMTP_URL);
  const retryScheduleMs = parseRetrySchedule(values.MAIL_RETRY_SCHEDULE);
  if (smtp === undefined || retryScheduleMs === undefined) throw new Error('A configuration value accepted by the schema did not convert.');
  return {
    smtp,
    from: values.MAIL_FROM.trim(),
    timeoutMs: values.MAIL_TIMEOUT_MS,
    retryScheduleMs,
    pollIntervalMs: values.MAIL_POLL_INTERVAL_MS,
    ...(values.MAIL_SECRETS_KEY === undefined ? {} : { secretsKey: values.MAIL_SECRETS_KEY }),
  };
}
