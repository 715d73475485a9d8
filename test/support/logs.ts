import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { LogLevel } from '../../src/config/config.js';
import { createLogger } from '../../src/http/logging.js';

/** The process logger as built in production, writing every line to `logs` as text. */
export function capturingLogger(level: LogLevel = 'trace'): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger(level, sink), logs };
}
