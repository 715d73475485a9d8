/*
 * The worker thread of `orders import`: parses and validates batches of
 * lines (src/orders/import/parser-thread.ts sends them) while the main
 * thread writes the batches before them to storage.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parseOrderBatch, rememberingDateTimes } from './order-lines.js';

const { accountId, createdAt } = workerData as { accountId: number; createdAt: string };
const normalizeShipDate = rememberingDateTimes();

parentPort?.on('message', (lines: string[]) => {
  parentPort?.postMessage(parseOrderBatch(lines, { accountId, createdAt, normalizeShipDate }));
});
