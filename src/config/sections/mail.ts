import { Type } from 'typebox';
import { CURSOR_SECRET_MIN_LENGTH, PRINTABLE, isMailbox, parseRetrySchedule, parseSmtpUrl } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): outgoing mail (docs/mail.md). */

export const mail = Type.Object(
  {
    SMTP_URL: Type.Optional(
      Type.Refine(
        Type.String({
          'x-secret': true,
          description:
            'The SMTP server mail goes out through: `smtp://user:password@host:port` (STARTTLS when offered, required when credentials go to a host other than loopback; port 587 by default) or `smtps://…` (TLS; port 465), credentials percent-encoded, never logged or echoed. ' +
            'Unset: mail is kept in the local outbox (`store-orders mail list`, the portal\'s Development mailbox)',
        }),
        (url) => parseSmtpUrl(url) !== undefined,
        () => 'SMTP_URL must be smtp://[user:password@]host[:port] or smtps://… with no path or query (the value is not shown: it may hold a password)',
      ),
    ),
    MAIL_FROM: Type.Refine(
      Type.String({ default: 'Store Orders <no-reply@localhost>', description: 'The sender of every mail: an address, or a name and an address in `<…>`' }),
      isMailbox,
      () => 'MAIL_FROM must be an address such as no-reply@store.example.com, or a name and an address: Store Orders <no-reply@store.example.com>',
    ),
    MAIL_TIMEOUT_MS: Type.Integer({
      minimum: 1000,
      maximum: 600_000,
      default: 30_000,
      description: 'How long one attempt to hand a mail to the SMTP server may take, all of it (resolving, connecting, TLS, the whole SMTP exchange)',
    }),
    MAIL_RETRY_SCHEDULE: Type.Refine(
      Type.Array(Type.String(), {
        default: ['30s', '2m', '10m', '30m', '1h', '2h', '4h', '8h'],
        description: 'Delays before each retry of a mail the SMTP server did not take (±20 % jitter), e.g. `30s,5m`; after the last one the mail is `failed`',
      }),
      (entries) => parseRetrySchedule(entries) !== undefined,
      () => 'MAIL_RETRY_SCHEDULE must be a comma-separated list of durations such as 500ms, 5s, 5m, 2h or 1d',
    ),
    MAIL_POLL_INTERVAL_MS: Type.Integer({
      minimum: 10,
      maximum: 3_600_000,
      default: 1000,
      description: "How often an idle mail engine looks for due mail: retries that came due and other processes' mail (this process's own mail wakes it at once)",
    }),
    MAIL_SECRETS_KEY: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: 'Key that encrypts queued mail (its links carry one-time tokens) in the database; unset: a key generated once and kept in the database',
        errorMessage: `MAIL_SECRETS_KEY must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
  },
  { title: 'Mail' },
);
