/* A stand-in for the import's worker thread that dies on its second batch (test/orders/import/parser-thread.test.ts). */
import { parentPort } from 'node:worker_threads';

let batches = 0;
parentPort?.on('message', () => {
  batches++;
  if (batches === 2) throw new Error('out of memory, say');
  parentPort?.postMessage({ orders: [] });
});
