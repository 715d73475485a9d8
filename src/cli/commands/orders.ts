import { OPERATOR_CONTEXT } from '../../audit/audit-context.js';
import type { Order } from '../../orders/orders-repository.js';
import { accountIdOption, int64, integer, JSON_OPTION, optionalString, requiredString } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

function orderJson(o: Order) {
  return { id: o.id, accountId: o.accountId, petId: o.petId, quantity: o.quantity, shipDate: o.shipDate, complete: o.complete, status: o.status };
}

export const ordersCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'orders create',
    summary: 'Place a pending order',
    options: {
      account: { type: 'string', value: '<id>', description: 'The account that places the order', required: true },
      'pet-id': { type: 'string', value: '<int64>', description: 'The pet ordered', required: true },
      quantity: { type: 'string', value: '<n>', description: 'How many', required: true },
      'ship-date': { type: 'string', value: '<ISO 8601>', description: 'The ship date, a date-time with an offset' },
      complete: { type: 'boolean', description: 'Mark the order complete' },
      id: { type: 'string', value: '<int64>', description: 'The order\'s id (default: the next one); ids are unique across the store' },
      ...JSON_OPTION,
    },
    details: ['A negative id is passed after --, e.g. store-orders orders ship -- -5.'],
    migrateFirst: true,
    async run({ container, values, print }) {
      const id = optionalString(values, 'id');
      const order = await container.services.orderOperations.createOrder({
        accountId: accountIdOption(values),
        id: id === undefined ? undefined : int64(id, '--id'),
        petId: int64(requiredString(values, 'pet-id'), '--pet-id'),
        quantity: integer(requiredString(values, 'quantity'), '--quantity'),
        shipDate: optionalString(values, 'ship-date'),
        complete: values.complete === true,
      }, OPERATOR_CONTEXT);
      print.result(orderJson(order), `Created order ${order.id} (pending) for account ${order.accountId}.`);
    },
  },
  {
    kind: 'database',
    name: 'orders list',
    summary: 'List an account\'s orders, any status',
    options: { account: { type: 'string', value: '<id>', description: 'The account whose orders to list', required: true }, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, print }) {
      const accountId = accountIdOption(values);
      // An empty list would read as "this account has no orders", which is a different fact.
      await container.services.accounts.requireAccount(accountId);
      const orders = await container.services.orderOperations.listAllOrders(accountId);
      print.result(
        { orders: orders.map(orderJson) },
        orders.length === 0
          ? 'No orders.'
          : orders.map((o) => `${o.id}\t${o.status}\tpet ${o.petId ?? '-'}\tqty ${o.quantity ?? '-'}\t${o.shipDate ?? ''}`).join('\n'),
      );
    },
  },
  {
    kind: 'database',
    name: 'orders ship',
    summary: 'Move a pending order to shipped',
    positionals: [{ name: 'orderId', description: 'The order\'s id, a decimal int64 (a negative one after --)' }],
    options: JSON_OPTION,
    migrateFirst: true,
    async run({ container, args, print }) {
      const orderId = int64(args[0] ?? '', 'orderId');
      await container.services.orderOperations.shipOrder(orderId, OPERATOR_CONTEXT);
      print.result({ id: orderId, status: 'shipped' }, `Order ${orderId} is now shipped.`);
    },
  },
];
