/**
 * A real SMTP server on loopback (the smtp-server package) for the mail
 * tests: it requires the credentials it was given (AUTH over the plain
 * connection, which nodemailer allows to a loopback host), keeps every
 * message that arrives parsed (mailparser: From, To, Subject, the text and
 * HTML parts), and can refuse messages with a temporary 451 as a busy
 * server does.
 */
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ArrivedMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** The user the client authenticated as. */
  user: string | undefined;
}

export interface TestSmtpServer {
  /** smtp://user:password@127.0.0.1:<port> for SMTP_URL. */
  url: string;
  arrived: ArrivedMail[];
  /** Messages refused so far (451). */
  refused: () => number;
  /** From now on, refuse the next `count` messages with 451 4.3.0 (Infinity: every one). */
  refuse(count: number): void;
}

/** Starts the server on 127.0.0.1 (a free port); it is closed when the test ends. */
export async function startSmtpServer(t: TestContext, { user, password }: { user: string; password: string }): Promise<TestSmtpServer> {
  const arrived: ArrivedMail[] = [];
  let toRefuse = 0;
  let refused = 0;
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (toRefuse > 0) {
          toRefuse--;
          refused++;
          callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then(
          (parsed) => {
            arrived.push({
              from: parsed.from?.text ?? '',
              to: (Array.isArray(parsed.to) ? parsed.to : parsed.to === undefined ? [] : [parsed.to]).map((address) => address.text).join(', '),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              messageId: parsed.messageId ?? '',
              user: typeof session.user === 'string' ? session.user : undefined,
            });
            callback();
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    arrived,
    refused: () => refused,
    refuse(count) {
      toRefuse = count;
    },
  };
}
