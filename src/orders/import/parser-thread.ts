import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModuleWorker } from '../../shared/module-worker.js';
import type { ParsedBatch } from './order-lines.js';
import type { NewOrder } from '../orders-repository.js';

/**
 * Batches handed to the worker before the first of them is taken back:
 * enough to keep it busy while storage writes, few enough to bound memory
 * (24,000 orders). PostgreSQL gathers 10 batches into one statement, so the
 * parser holds more than a statement's worth: with 4, the next statement
 * waited for 6 batches to be parsed (1,000,000 orders into PostgreSQL:
 * 30.7–35.3 s with 4, 29.6–29.8 s with 24, on a quiet machine).
 */
export const IMPORT_PARSER_AHEAD = 24;

/* The worker's file next to this one: .js when built, .ts when run from the sources. */
const WORKER_FILE = new URL(`./parser-worker${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** A batch parsed: its orders and their line numbers, or the first refused line by its number. */
export type ParsedLines = { orders: NewOrder[]; numbers: readonly number[] } | { refused: { line: number; message: string } };

export interface ImportParser {
  /** Queues a batch of non-blank lines with their line numbers; false when IMPORT_PARSER_AHEAD batches are queued already. */
  offer(lines: string[], numbers: readonly number[]): boolean;
  /** The oldest queued batch, parsed; undefined when none is queued. */
  take(): Promise<ParsedLines> | undefined;
  /** Stops the worker; batches still queued are dropped. */
  close(): Promise<void>;
}

/**
 * Parses import batches on a worker thread, in order, so that parsing the
 * next batches overlaps writing this one: parsing was about 40 % of a
 * single-threaded import, and on its own thread it runs while storage writes.
 */
export function startImportParser(options: { accountId: number; createdAt: string }, workerFile: URL = WORKER_FILE): ImportParser {
  const worker = startModuleWorker(workerFile, { workerData: options });
  const queued: { resolve(batch: ParsedBatch): void; reject(error: Error): void }[] = [];
  const promises: Promise<ParsedLines>[] = [];
  let failure: Error | undefined;
  const failAll = (error: Error) => {
    failure ??= error;
    for (const waiter of queued.splice(0)) waiter.reject(failure);
  };
  worker.on('message', (batch: ParsedBatch) => queued.shift()?.resolve(batch));
  worker.on('error', (error) => failAll(new Error(`the import's parser failed: ${error.message}`)));
  worker.on('exit', () => failAll(new Error("the import's parser stopped")));
  return {
    offer(lines, numbers) {
      if (promises.length >= IMPORT_PARSER_AHEAD) return false;
      const promise = failure
        ? Promise.reject(failure)
        : new Promise<ParsedBatch>((resolve, reject) => {
            queued.push({ resolve, reject });
            worker.postMessage(lines);
          }).then((batch): ParsedLines =>
            'refused' in batch ? { refused: { line: numbers[batch.refused.index] ?? 0, message: batch.refused.message } } : { orders: batch.orders, numbers },
          );
      // Settled by take(); until then a rejection is not unhandled.
      promise.catch(() => undefined);
      promises.push(promise);
      return true;
    },
    take() {
      return promises.shift();
    },
    async close() {
      await worker.terminate();
    },
  };
}
