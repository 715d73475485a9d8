import { OPERATOR_CONTEXT } from '../../audit/audit-context.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import type { WebhookEndpoint } from '../../webhooks/webhooks-repository.js';
import { accountIdOption, JSON_OPTION, optionalString, requiredString, UsageError } from '../cli-args.js';
import type { DatabaseCommand } from './command.js';

/** The operator at the CLI, for the audit trail (and no scope applies). */
const OPERATOR = { context: OPERATOR_CONTEXT };

function endpointJson(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    accountId: endpoint.accountId,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    description: endpoint.description,
    status: endpoint.status,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
  };
}

function endpointLine(endpoint: WebhookEndpoint): string {
  return `${endpoint.id}\t${endpoint.status}\t${endpoint.url}\t${endpoint.eventTypes?.join(',') ?? 'all events'}${endpoint.description === null ? '' : `\t${endpoint.description}`}`;
}

const ACCOUNT = { type: 'string', value: '<id>', description: 'The account the endpoint belongs to', required: true } as const;
const ENDPOINT_ID = { name: 'endpointId', description: 'The endpoint\'s id (we_…), as webhooks list shows it' };
const LIST_PAGE = 100;

const SECRET_NOTE = 'Store it now: it is shown only this once. Receivers verify deliveries with it (docs/webhooks.md).';

export const webhooksCommands: readonly DatabaseCommand[] = [
  {
    kind: 'database',
    name: 'webhooks create',
    summary: 'Register a webhook endpoint (its signing secret is shown once)',
    options: {
      account: ACCOUNT,
      url: { type: 'string', value: '<url>', description: 'Where events are POSTed (https; see docs/webhooks.md for the address rules)', required: true },
      events: { type: 'string', value: '<t1,t2>', description: `Comma-separated event types among ${EVENT_TYPES.join(', ')} (default: every type)` },
      description: { type: 'string', value: '<text>', description: 'A note for people' },
      ...JSON_OPTION,
    },
    migrateFirst: true,
    async run({ container, values, print }) {
      const eventsText = optionalString(values, 'events');
      const eventTypes = eventsText?.split(/[\s,]+/).filter((type) => type !== '');
      const unknown = eventTypes?.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
      if (unknown !== undefined) throw new UsageError(`--events: unknown event type "${unknown}"; known: ${EVENT_TYPES.join(', ')}`);
      const { endpoint, secret } = await container.services.webhooks.createEndpoint(accountIdOption(values), {
        url: requiredString(values, 'url'),
        ...(eventTypes === undefined ? {} : { eventTypes }),
        description: optionalString(values, 'description') ?? null,
      }, OPERATOR);
      print.result({ ...endpointJson(endpoint), secret }, `Created webhook endpoint ${endpoint.id} for account ${endpoint.accountId}.\nSigning secret:\n\n  ${secret}\n\n${SECRET_NOTE}`);
    },
  },
  {
    kind: 'database',
    name: 'webhooks list',
    summary: 'List an account\'s webhook endpoints (never the secrets)',
    options: { account: { ...ACCOUNT, description: 'The account whose endpoints to list' }, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, print }) {
      const accountId = accountIdOption(values);
      const endpoints: WebhookEndpoint[] = [];
      for (let after: string | undefined; ; ) {
        const page = await container.services.webhooks.listEndpoints(accountId, after, LIST_PAGE);
        endpoints.push(...page.items);
        if (page.next === undefined) break;
        after = page.next;
      }
      print.result({ endpoints: endpoints.map(endpointJson) }, endpoints.length === 0 ? 'No webhook endpoints.' : endpoints.map(endpointLine).join('\n'));
    },
  },
  {
    kind: 'database',
    name: 'webhooks delete',
    summary: 'Delete a webhook endpoint and its delivery log',
    positionals: [ENDPOINT_ID],
    options: { account: ACCOUNT, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, args, print }) {
      const id = args[0] ?? '';
      await container.services.webhooks.deleteEndpoint(accountIdOption(values), id, OPERATOR);
      print.result({ id, deleted: true }, `Deleted webhook endpoint ${id}.`);
    },
  },
  {
    kind: 'database',
    name: 'webhooks rotate-secret',
    summary: 'Issue a new signing secret; deliveries carry both signatures for 24 hours',
    positionals: [ENDPOINT_ID],
    options: { account: ACCOUNT, ...JSON_OPTION },
    migrateFirst: true,
    async run({ container, values, args, print }) {
      const { endpoint, secret } = await container.services.webhooks.rotateSecret(accountIdOption(values), args[0] ?? '', OPERATOR);
      print.result(
        { ...endpointJson(endpoint), secret },
        `New signing secret for webhook endpoint ${endpoint.id}:\n\n  ${secret}\n\n${SECRET_NOTE} The previous secret keeps signing deliveries for 24 hours.`,
      );
    },
  },
];
