import { randomUUID } from 'node:crypto';
import { ValidationError } from '../errors/errors.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Clock } from '../shared/clock.js';
import { hasControlCharacter } from '../shared/user-text.js';
import type { MailQuery, MailRecord, MailRepository, NewMail } from './mail-repository.js';
import type { MailMessage } from './mail-templates.js';

/** The parts of a mail, as sealed in the database and opened to send or show it. */
export interface MailBody {
  text: string;
  html: string;
}

/** The most mail one listing shows. */
export const MAIL_LIST_MAX = 500;

/** What the box that seals mail bodies is keyed with: MAIL_SECRETS_KEY, or a key kept in the database under this name. */
export const MAIL_BOX_PURPOSE = { keyName: 'mail-key', label: 'store-orders mail' };

/** One address, the way the users service stores emails: no display name, no list, no control character (a header injection). */
function checkRecipient(to: string): void {
  if (hasControlCharacter(to) || !/^[^\s@<>,;"]+@[^\s@<>,;"]+$/.test(to)) throw new ValidationError('A mail goes to one address like name@example.com.');
}

function toBody(opened: string): MailBody {
  const parsed = JSON.parse(opened) as Partial<MailBody>;
  if (typeof parsed.text !== 'string' || typeof parsed.html !== 'string') throw new Error('a sealed mail body without its two parts');
  return { text: parsed.text, html: parsed.html };
}

/**
 * Outgoing mail (docs/mail.md): a composed message (mail-templates.ts) is
 * sealed (its links carry one-time tokens: the body is never stored in
 * clear) and queued; the mail engine (mail-dispatcher.ts) sends it through
 * SMTP, or keeps it in the local outbox. Queuing never waits for a mail
 * server. A change that sends mail (a password reset, an invitation) calls
 * `prepare` and queues the result in its own transaction (the adapters'
 * `insertMail`); `send` queues one on its own.
 */
export function createMailService({ mailRepository, box, clock }: { mailRepository: MailRepository; box: SecretBox; clock: Clock }) {
  async function prepare(message: MailMessage, { accountId }: { accountId?: number } = {}): Promise<NewMail> {
    checkRecipient(message.to);
    if (hasControlCharacter(message.subject)) throw new ValidationError('A mail subject cannot contain control characters.');
    const body: MailBody = { text: message.text, html: message.html };
    return {
      id: randomUUID(),
      kind: message.kind,
      recipient: message.to,
      subject: message.subject,
      sealedBody: await box.seal(JSON.stringify(body)),
      ...(accountId === undefined ? {} : { accountId }),
      createdAt: clock.now().toISOString(),
    };
  }

  /** The parts of a sealed body. */
  async function open(sealedBody: string): Promise<MailBody> {
    return toBody(await box.open(sealedBody));
  }

  return {
    /** The row that queues `message`, its body sealed, for a change to insert in its own transaction. */
    prepare,
    /** Queues `message` on its own; its id. */
    async send(message: MailMessage, options: { accountId?: number } = {}): Promise<string> {
      const mail = await prepare(message, options);
      await mailRepository.enqueue(mail);
      return mail.id;
    },
    /** Queued and sent mail, newest first (never a body). */
    list(query: MailQuery): Promise<MailRecord[]> {
      return mailRepository.list({ ...query, limit: Math.min(Math.max(1, query.limit), MAIL_LIST_MAX) });
    },
    /**
     * One mail with its opened body, for the operator (`mail show`) or the
     * development mailbox, which passes `recipient`: a mail to anyone else
     * is not found.
     */
    async show(id: string, { recipient }: { recipient?: string } = {}): Promise<{ mail: MailRecord; body: MailBody } | undefined> {
      const stored = await mailRepository.find(id);
      if (stored === undefined || (recipient !== undefined && stored.recipient !== recipient)) return undefined;
      const { sealedBody, ...mail } = stored;
      return { mail, body: await open(sealedBody) };
    },
    /** The parts of a sealed body (the senders open it only to send it). */
    open,
  };
}

export type MailService = ReturnType<typeof createMailService>;
