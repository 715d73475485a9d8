import { SYSTEM_CONTEXT } from '../../audit/audit-context.js';
import type { AuditContext } from '../../audit/audit-repository.js';
import { AppError, ConflictError, ValidationError } from '../../errors/errors.js';
import { orderNotFound } from '../order-status-changes.js';
import type { Clock } from '../../shared/clock.js';
import { startImportParser, type ParsedLines } from '../import/parser-thread.js';
import { newPendingOrder, type CreateOrderInput } from '../new-order.js';
import { ImportRejectedError, type ImportBatch, type Order, type OrdersRepository } from '../orders-repository.js';

const IMPORT_BATCH = 1000;

/**
 * What is done to orders outside the API's v1 and v2 operations: placing
 * one, importing many, shipping, and the operator's view of every status.
 * The CLI uses all of it, the portal ships, tests place orders; none of it
 * is a v1 or v2 rule, so none of it lives in their services.
 */
export function createOrderOperationsService({ ordersRepository, clock }: { ordersRepository: OrdersRepository; clock: Clock }) {

  return {
    /** Every order of the account in any status (operator view). */
    async listAllOrders(accountId: number): Promise<Order[]> {
      return ordersRepository.listAll(accountId);
    },

    /** Places an order in the pending state (operator interface); with `context` (the operator's), its order_created audit entry in the same transaction. */
    async createOrder(input: CreateOrderInput, context?: AuditContext): Promise<Order> {
      const order = newPendingOrder(input, clock.now().toISOString());
      return ordersRepository.create(context === undefined ? order : { ...order, audit: context });
    },

    /**
     * Bulk-loads pending orders for one account from NDJSON lines (one
     * CreateOrderInput object per line, blank lines skipped), all in one
     * transaction: a bad line aborts the import with its line number and
     * nothing is committed. `lines` comes in groups (e.g. the lines of each
     * chunk read); a worker thread parses batches of them while storage
     * writes the batches before.
     */
    async importOrders(
      accountId: number,
      lines: AsyncIterable<readonly string[]>,
      { onProgress }: { onProgress?: (imported: number) => void } = {},
    ): Promise<{ imported: number }> {
      const parser = startImportParser({ accountId, createdAt: clock.now().toISOString() });
      let queued = 0;
      /** A parsed batch to storage, with its line numbers; a refused line ends the import with its number. */
      async function* store(parsed: Promise<ParsedLines>): AsyncGenerator<ImportBatch> {
        const batch = await parsed;
        if ('refused' in batch) throw new ValidationError(`Line ${batch.refused.line}: ${batch.refused.message}`);
        queued += batch.orders.length;
        yield { orders: batch.orders, lines: batch.numbers };
        onProgress?.(queued);
      }
      async function* toParser(batch: string[], numbers: number[]): AsyncGenerator<ImportBatch> {
        if (parser.offer(batch, numbers)) return;
        // The parser is full: its oldest batch is taken before this one goes in, so that
        // the parser still holds a full queue while storage writes the batch taken.
        const oldest = parser.take();
        if (oldest === undefined || !parser.offer(batch, numbers)) throw new Error('the parser refused a batch after one was taken');
        yield* store(oldest);
      }
      async function* batches(): AsyncGenerator<ImportBatch> {
        let batch: string[] = [];
        let numbers: number[] = [];
        let lineNumber = 0;
        for await (const group of lines) {
          for (const line of group) {
            lineNumber++;
            if (line.trim() === '') continue;
            batch.push(line);
            numbers.push(lineNumber);
            if (batch.length === IMPORT_BATCH) {
              yield* toParser(batch, numbers);
              batch = [];
              numbers = [];
            }
          }
        }
        if (batch.length > 0) yield* toParser(batch, numbers);
        for (let parsed = parser.take(); parsed !== undefined; parsed = parser.take()) yield* store(parsed);
      }
      try {
        return await ordersRepository.importOrders(batches());
      } catch (error) {
        if (error instanceof ImportRejectedError) {
          const reason = error.reason;
          if (reason instanceof AppError && reason.code === 'account_not_found') throw reason;
          throw new ConflictError('order_id_taken', `Line ${error.line}: ${reason.message}`);
        }
        throw error;
      } finally {
        await parser.close();
      }
    },

    /** Moves a pending order to shipped (operator interface). */
    async shipOrder(orderId: bigint, context: AuditContext = SYSTEM_CONTEXT): Promise<void> {
      const result = await ordersRepository.changeStatus({ id: orderId, from: 'pending', to: 'shipped', at: clock.now().toISOString(), audit: context });
      if (result.changed) return;
      if (result.current === undefined) throw orderNotFound(orderId);
      throw new ConflictError(
        'order_not_pending',
        result.current === 'shipped' ? `Order ${orderId} has already shipped.` : `Order ${orderId} is cancelled and cannot be shipped.`,
      );
    },
  };
}

export type OrderOperationsService = ReturnType<typeof createOrderOperationsService>;
