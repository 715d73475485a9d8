import { open } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../errors/errors.js';
import { ndjsonLines, type LineSource } from '../../shared/ndjson-lines.js';
import { accountIdOption, JSON_OPTION, UsageError } from '../cli-args.js';
import { InterruptedError } from '../cli-errors.js';
import { progressBar, type CliIo } from '../cli-output.js';
import type { DatabaseCommand } from './command.js';

export const ordersImportCommand: DatabaseCommand = {
  kind: 'database',
  name: 'orders import',
  summary: 'Load pending orders in bulk, all or nothing',
  positionals: [
    { name: 'file', description: 'An NDJSON file, one JSON object per line ({"petId":1,"quantity":2,...}), or - for standard input' },
  ],
  options: { account: { type: 'string', value: '<id>', description: 'The account the orders belong to', required: true }, ...JSON_OPTION },
  details: ['A refused line is named by its number and nothing is imported. On a terminal, progress is drawn on stderr.'],
  migrateFirst: true,
  async run({ container, values, args, print, io }) {
    const interrupt = new AbortController();
    // Registered before anything is read: a Ctrl-C from here on stops the import cleanly.
    const stopListening = io.onInterrupt?.(() => interrupt.abort()) ?? (() => undefined);
    const input = await openImportSource(args[0] ?? '', io).catch((error: unknown) => {
      stopListening();
      throw error;
    });
    const progress = progressBar(io.stderr, input.size);
    try {
      const accountId = accountIdOption(values);
      const { imported } = await container.services.orderOperations.importOrders(accountId, interruptible(input.lines, interrupt.signal), {
        onProgress: (count) => progress.update(count, input.bytesRead()),
      });
      progress.done();
      // A Ctrl-C after the last line was read came too late to stop the commit: the orders are in.
      print.result({ imported }, `Imported ${imported} orders into account ${accountId}.`);
    } catch (error) {
      progress.done();
      throw error;
    } finally {
      stopListening();
      await input.close();
    }
  },
};

/**
 * The input's lines until `signal` aborts, then an InterruptedError, even
 * while a read is waiting (a pipe that sends nothing). The error reaches
 * storage, which rolls the import's transaction back before it surfaces here:
 * by the time the message is printed, nothing was imported.
 */
async function* interruptible<T>(source: AsyncGenerator<T, void, undefined>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const interrupted = () => new InterruptedError('interrupted: the import was rolled back; no orders were imported.');
  const aborted = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(interrupted());
    signal.addEventListener('abort', () => reject(interrupted()), { once: true });
  });
  // Observed here so that an abort nobody awaits (the import already failed) is no unhandled rejection.
  aborted.catch(() => undefined);
  // Whether a read is still outstanding: the source can be released only between reads.
  let reading = false;
  try {
    while (true) {
      reading = true;
      const next = await Promise.race([source.next(), aborted]);
      reading = false;
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    // An import that ends early (a refused line) releases its input, e.g. stops reading standard input.
    if (!reading) await source.return(undefined);
  }
}

interface ImportSource extends LineSource {
  /** Total bytes, when known (a file, not a pipe). */
  size: number | undefined;
  /** Releases the input (the import may end before reading all of it). */
  close(): Promise<void>;
}

/** Why a file cannot be read, in words; undefined for errors that are not about the file. */
const UNREADABLE = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
} as const;

async function openImportSource(source: string, io: CliIo): Promise<ImportSource> {
  if (source === '-') {
    const stdin = io.stdin;
    if (stdin === undefined) throw new UsageError('no standard input to read from');
    // Standard input is the caller's: the line reader stops reading it when the import ends.
    return { ...ndjsonLines(stdin), size: undefined, close: async () => undefined };
  }
  const cannotRead = (reason: string) => new AppError('validation_failed', `Cannot read ${source}: ${reason}.`);
  const unreadable = (error: unknown) => {
    const reason = (UNREADABLE as Readonly<Record<string, string | undefined>>)[(error as NodeJS.ErrnoException).code ?? ''];
    return reason === undefined ? error : cannotRead(reason);
  };
  // Opened (and refused) here: storage may take a while to begin (PostgreSQL's BEGIN) before the first read.
  let handle;
  try {
    handle = await open(path.resolve(io.cwd, source));
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw cannotRead(UNREADABLE.EISDIR);
    const stream = handle.createReadStream({ highWaterMark: 1 << 20, autoClose: false });
    return {
      ...ndjsonLines(stream),
      size: stats.size,
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw unreadable(error);
  }
}
