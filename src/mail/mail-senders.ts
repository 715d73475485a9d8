import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';
import type { MailConfig } from '../config/config.js';
import type { Sender } from '../delivery/delivery-engine.js';
import { DeliveryError, describeRequestFailure } from '../delivery/delivery-error.js';
import type { AttemptRecord } from '../delivery/delivery-queue.js';
import { isLoopbackHost } from '../shared/loopback.js';
import type { ClaimedMail, MailChannel } from './mail-repository.js';
import type { MailBody } from './mail-service.js';

/** Hands one queued mail on: to the SMTP server, or to the local outbox. */
export interface MailSender extends Sender<ClaimedMail> {
  readonly channel: MailChannel;
  close(): void;
}

/**
 * SMTP_URL unset: the mail stays in the database, where `store-orders mail
 * list|show` and the portal's development mailbox read it; delivering it is
 * marking it sent to the outbox. It still goes through the queue, so that
 * `sent` means the same in both set-ups.
 */
export const outboxSender: MailSender = {
  channel: 'outbox',
  async deliver(): Promise<AttemptRecord> {
    return { channel: 'outbox' };
  },
  close() {},
};

/** The attempt's deadline passed (named as describeRequestFailure words it). */
class SmtpTimeoutError extends Error {
  override name = 'TimeoutError';
}

/** The SMTP command a failure came at (`RCPT TO`, `DATA`), when it is one: never an argument of it. */
function commandOf(error: { command?: unknown }): string {
  return typeof error.command === 'string' && /^[A-Z]{2,8}(?: [A-Z]{2,8})?$/.test(error.command) ? ` at ${error.command}` : '';
}

/**
 * Why an attempt failed, in words fit for `mail list` and the log: the
 * server's reply when it gave one (its code and text, without control
 * characters, and without the password should a server echo it), else why
 * it could not be reached. Never the URL or the credentials.
 */
function describeSmtpFailure(error: unknown, signal: AbortSignal, password: string | undefined): string {
  const reply = error instanceof Error ? (error as { responseCode?: unknown; response?: unknown; command?: unknown; code?: unknown }) : {};
  if (!signal.aborted && typeof reply.responseCode === 'number') {
    let text = typeof reply.response === 'string' ? reply.response.replace(/\p{Cc}+/gu, ' ').trim().slice(0, 200) : '';
    if (password !== undefined && password !== '') text = text.replaceAll(password, '[redacted]');
    return `The mail server refused the mail${commandOf(reply)}: ${text === '' ? String(reply.responseCode) : text}`;
  }
  // nodemailer's own per-step timeouts (greeting, socket) say the same as the attempt's deadline.
  if (!signal.aborted && reply.code === 'ETIMEDOUT') return 'The mail server did not answer in time.';
  return describeRequestFailure(error, signal, 'mail server');
}

/**
 * The SMTP sender (nodemailer's transport), built from SMTP_URL's parts,
 * never from its text, and with nodemailer's logger off, so the password
 * reaches neither a log line nor an error. smtps:// speaks TLS from the
 * first byte; smtp:// upgrades with STARTTLS when the server offers it, and
 * requires it when credentials would go to another machine. Every attempt
 * has one deadline, `timeoutMs`, for all of it (resolving, connecting, TLS,
 * the SMTP exchange), besides nodemailer's own per-step timeouts; shutdown
 * aborts it. Any failure is a failed attempt (retried by the schedule);
 * each mail carries a Message-ID of its own id, so a receiver can drop the
 * copy a retry after a lost answer sends again.
 */
export function createSmtpSender({ smtp, from, timeoutMs, open }: Pick<MailConfig, 'from' | 'timeoutMs'> & { smtp: NonNullable<MailConfig['smtp']>; open(sealedBody: string): Promise<MailBody> }): MailSender {
  // Required here, only where SMTP_URL is set: its 40 modules were a tenth of every CLI command's start-up.
  const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: !smtp.secure && smtp.user !== undefined && !isLoopbackHost(smtp.host),
    ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
    logger: false,
    debug: false,
  });
  const domain = /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return {
    channel: 'smtp',
    async deliver(mail, signal) {
      const body = await open(mail.sealedBody);
      const deadline = new AbortController();
      // One timer per attempt, cleared when it settles (as the outbound HTTP client does: delivery/outbound-http.ts).
      const timer = setTimeout(() => deadline.abort(new SmtpTimeoutError(`no complete exchange within ${timeoutMs} ms`)), timeoutMs);
      const interrupted = () => deadline.abort(signal.reason);
      if (signal.aborted) interrupted();
      else signal.addEventListener('abort', interrupted, { once: true });
      try {
        await transport.sendMail({
          from,
          to: mail.recipient,
          subject: mail.subject,
          text: body.text,
          html: body.html,
          messageId: `<${mail.id}@${domain}>`,
          signal: deadline.signal,
        });
      } catch (error) {
        const reason = deadline.signal.aborted && !signal.aborted ? deadline.signal.reason : error;
        throw new DeliveryError(describeSmtpFailure(reason, signal, smtp.password));
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', interrupted);
      }
      return { channel: 'smtp' };
    },
    close() {
      transport.close();
    },
  };
}
