import { OPERATOR_CONTEXT } from '../../audit/audit-context.js';
import { JSON_OPTION } from '../cli-args.js';
import { CommandFailed } from '../cli-errors.js';
import { localBaseUrl } from '../local-server.js';
import { databaseAssignment } from '../../shared/shell-hint.js';
import type { DatabaseCommand } from './command.js';

/** Pets and quantities of the demo's orders; the first of each status is the one the curl lines use. */
const DEMO_ORDERS = {
  pending: [
    { petId: 101n, quantity: 1 },
    { petId: 102n, quantity: 2 },
    { petId: 103n, quantity: 1 },
  ],
  shipped: [
    { petId: 201n, quantity: 3 },
    { petId: 202n, quantity: 1 },
  ],
  cancelled: [
    { petId: 301n, quantity: 2 },
    { petId: 302n, quantity: 1 },
  ],
} as const;

/** The curl lines to try, in the order to run them; the key is single-quoted for the shell (it is base62). */
function demoCurlLines(baseUrl: string, key: string, pendingId: bigint, shippedId: bigint): string[] {
  const auth = `-H 'Authorization: Bearer ${key}'`;
  return [
    `curl -i ${auth} ${baseUrl}/store/orders`,
    `curl -i -X DELETE ${auth} ${baseUrl}/store/orders/${pendingId}`,
    `curl -i -X DELETE ${auth} ${baseUrl}/store/orders/${shippedId}`,
  ];
}

export const demoCommand: DatabaseCommand = {
  kind: 'database',
  name: 'demo',
  summary: 'Fill a fresh database with a demo account, an API key and orders of each status, and print curl lines to try',
  options: {
    force: { type: 'boolean', description: 'Add the demo data even though the database already has accounts' },
    ...JSON_OPTION,
  },
  details: [
    'The key is printed once. The curl lines use HOST and PORT, as store-orders serve will with the same configuration:',
    'list the orders (200), cancel a pending order (204), try to cancel a shipped one (409 order_already_shipped).',
  ],
  migrateFirst: true,
  async run({ config, container, values, io, print }) {
    const { accounts, apiKeys, orders, orderOperations } = container.services;
    const existing = await accounts.listAccounts();
    if (existing.length > 0 && values.force !== true) {
      throw new CommandFailed(
        `the database already has ${existing.length === 1 ? 'an account' : `${existing.length} accounts`}; demo data belongs in a fresh database (run with --force to add it anyway)`,
        'database_not_empty',
      );
    }
    const account = await accounts.createAccount({ name: 'Demo Pet Store' });
    const { apiKey, secret } = await apiKeys.createKey({ accountId: account.id, name: 'demo' }, OPERATOR_CONTEXT);
    const shipDate = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const place = (order: { petId: bigint; quantity: number }) =>
      orderOperations.createOrder({ accountId: account.id, petId: order.petId, quantity: order.quantity, shipDate, complete: false });
    const ids = { pending: [] as bigint[], shipped: [] as bigint[], cancelled: [] as bigint[] };
    for (const order of DEMO_ORDERS.pending) ids.pending.push((await place(order)).id);
    for (const order of DEMO_ORDERS.shipped) {
      const { id } = await place(order);
      await orderOperations.shipOrder(id, OPERATOR_CONTEXT);
      ids.shipped.push(id);
    }
    for (const order of DEMO_ORDERS.cancelled) {
      const { id } = await place(order);
      await orders.cancelOrder(account.id, id, OPERATOR_CONTEXT);
      ids.cancelled.push(id);
    }
    const [pendingId] = ids.pending;
    const [shippedId] = ids.shipped;
    if (pendingId === undefined || shippedId === undefined) throw new Error('the demo placed no pending or no shipped order');
    const baseUrl = localBaseUrl(config);
    const curl = demoCurlLines(baseUrl, secret, pendingId, shippedId);
    print.result(
      { accountId: account.id, keyId: apiKey.id, key: secret, orders: ids, baseUrl, curl },
      [
        `Created account ${account.id} (${account.name}) with ${ids.pending.length} pending, ${ids.shipped.length} shipped and ${ids.cancelled.length} cancelled orders.`,
        '',
        `API key ${apiKey.id} (shown only this once; store it if you keep this database):`,
        '',
        `  ${secret}`,
        '',
        `Start the server in another terminal (same configuration): ${databaseAssignment(config.database, io.cwd)}./bin/store-orders serve${config.port === 0 ? '   (PORT=0: put the port it prints in place of <port>)' : ''}`,
        'Then try:',
        '',
        '  # the account\'s orders (200; cancelled ones are not listed)',
        `  ${curl[0] ?? ''}`,
        `  # cancel pending order ${pendingId} (204)`,
        `  ${curl[1] ?? ''}`,
        `  # order ${shippedId} has shipped: 409 order_already_shipped`,
        `  ${curl[2] ?? ''}`,
      ].join('\n'),
    );
  },
};
