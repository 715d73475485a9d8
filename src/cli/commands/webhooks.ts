import { OPERATOR_CONTEXT } from '../../audit/audit-context.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { WEBHOOK_ENDPOINT_STATUSES, type WebhookEndpoint, type WebhookEndpointStatus } from '../../webhooks/webhooks-repository.js';
import { accountIdOption, eventTypesOption, JSON_OPTION, optionalString, positiveInteger, requiredString, UsageError, type OptionValues } from '../cli-args.js';
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
    rateLimit: endpoint.rateLimit,
    pausedUntil: endpoint.pausedUntil,
    createdAt: endpoint.createdAt,
  };
}

function isEndpointStatus(text: string): text is WebhookEndpointStatus {
  return (WEBHOOK_ENDPOINT_STATUSES as readonly string[]).includes(text);
}

/** --rate-limit: deliveries a second, or `none` (update only) to remove the limit; undefined when not given. */
function rateLimitOption(values: OptionValues, allowNone: boolean): number | null | undefined {
  const text = optionalString(values, 'rate-limit');
  if (text === undefined) return undefined;
  if (allowNone && text === 'none') return null;
  return positiveInteger(text, '--rate-limit');
}

const RATE_LIMIT = { type: 'string', value: '<n>', description: 'At most n deliveries a second to this endpoint (default: no limit)' } as const;

function endpointLine(endpoint: WebhookEndpoint): string {
  const rate = endpoint.rateLimit === null ? '' : `\t${endpoint.rateLimit}/s`;
  return `${endpoint.id}\t${endpoint.status}\t${endpoint.url}\t${endpoint.eventTypes?.join(',') ?? 'all events'}${rate}${endpoint.description === null ? '' : `\t${endpoint.description}`}`;
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
      'rate-limit': RATE_LIMIT,
      ...JSON_OPTION,
    },
    migrateFirst: true,
    async run({ container, values, print }) {
      const eventTypes = eventTypesOption(values, 'events');
      // A deleted account's endpoints stay disabled: none is created or enabled in it.
      await container.services.accounts.requireLiveAccount(accountIdOption(values));
      const { endpoint, secret } = await container.services.webhooks.createEndpoint(accountIdOption(values), {
        url: requiredString(values, 'url'),
        ...(eventTypes === undefined ? {} : { eventTypes }),
        description: optionalString(values, 'description') ?? null,
        rateLimit: rateLimitOption(values, false) ?? null,
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
    name: 'webhooks update',
    summary: 'Change a webhook endpoint: its URL, event types, note, rate limit, or enable/disable it',
    positionals: [ENDPOINT_ID],
    options: {
      account: ACCOUNT,
      url: { type: 'string', value: '<url>', description: 'A new URL (checked as on create)' },
      events: { type: 'string', value: '<t1,t2>', description: 'The event types to receive, comma-separated' },
      description: { type: 'string', value: '<text>', description: 'A new note' },
      'rate-limit': { ...RATE_LIMIT, value: '<n|none>', description: 'At most n deliveries a second; none removes the limit' },
      status: { type: 'string', value: '<enabled|disabled>', description: 'Enable (resumes waiting deliveries, in order) or disable it' },
      ...JSON_OPTION,
    },
    migrateFirst: true,
    async run({ container, values, args, print }) {
      const status = optionalString(values, 'status');
      if (status !== undefined && !isEndpointStatus(status)) throw new UsageError('--status must be enabled or disabled');
      const url = optionalString(values, 'url');
      const eventTypes = eventTypesOption(values, 'events');
      const description = optionalString(values, 'description');
      const rateLimit = rateLimitOption(values, true);
      const patch = {
        ...(url === undefined ? {} : { url }),
        ...(eventTypes === undefined ? {} : { eventTypes }),
        ...(description === undefined ? {} : { description }),
        ...(rateLimit === undefined ? {} : { rateLimit }),
        ...(status === undefined ? {} : { status }),
      };
      if (Object.keys(patch).length === 0) throw new UsageError('Nothing to change: give --url, --events, --description, --rate-limit or --status');
      if (status === 'enabled') await container.services.accounts.requireLiveAccount(accountIdOption(values));
      const endpoint = await container.services.webhooks.updateEndpoint(accountIdOption(values), args[0] ?? '', patch, OPERATOR);
      print.result(endpointJson(endpoint), `Updated webhook endpoint ${endpoint.id}.\n${endpointLine(endpoint)}`);
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
