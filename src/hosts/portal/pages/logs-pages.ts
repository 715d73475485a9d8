import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, InvalidInputError, NotFoundError } from '../../../errors/errors.js';
import type { RequestLog } from '../../../request-logs/request-logs-repository.js';
import { REQUEST_LOG_METHODS, type RequestLogQuery } from '../../../request-logs/request-logs-service.js';
import { errorRecordOf } from '../../../request-logs/request-logs-routes.js';
import { orderIdInPath } from '../../../request-logs/request-log-orders.js';
import type { PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';
import { adviceFor } from './logs-advice.js';

/** Entries per portal page. */
const PAGE_SIZE = 25;
const FILTER_NAMES = ['status', 'method', 'path', 'requestId', 'keyId', 'since', 'until'] as const;
const STATUS_CHOICES = ['2xx', '3xx', '4xx', '5xx'] as const;

/** The form's fields as text (an empty field is no filter); bounded so that a long query string is refused by the schema. */
const LogsQuery = Type.Object({
  status: Type.Optional(Type.String({ maxLength: 8 })),
  method: Type.Optional(Type.String({ maxLength: 16 })),
  path: Type.Optional(Type.String({ maxLength: 300 })),
  requestId: Type.Optional(Type.String({ maxLength: 200 })),
  keyId: Type.Optional(Type.String({ maxLength: 20 })),
  since: Type.Optional(Type.String({ maxLength: 64 })),
  until: Type.Optional(Type.String({ maxLength: 64 })),
  cursor: Type.Optional(Type.String({ maxLength: 1000 })),
});
const LogParams = Type.Object({ logId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) });

/** The labels of the form, for the refusal of a field. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  status: 'Status',
  method: 'Method',
  path: 'Path starts with',
  requestId: 'Request id',
  keyId: 'Key id',
  since: 'From',
  until: 'Until',
  cursor: 'Page link',
};

type LogsForm = Partial<Record<(typeof FILTER_NAMES)[number], string>>;

/** The filled-in fields, trimmed, as the service's query. */
function toQuery(form: LogsForm): RequestLogQuery {
  const query: RequestLogQuery = {};
  for (const name of FILTER_NAMES) {
    const value = form[name]?.trim();
    if (value === undefined || value === '') continue;
    if (name === 'keyId') query.keyId = /^[0-9]{1,16}$/.test(value) ? Number(value) : -1;
    else query[name] = value;
  }
  return query;
}

function statusClass(status: number): string {
  return status >= 500 ? 'failed' : status >= 400 ? 'warning' : 'ok';
}

/** A request as the Logs page's rows and the order page show it. */
export function logRow(log: RequestLog) {
  return {
    href: `/logs/${log.id}`,
    id: String(log.id),
    when: log.at,
    at: formatInstant(log.at),
    method: log.method,
    path: log.path,
    status: log.status,
    statusClass: statusClass(log.status),
    errorCode: log.errorCode ?? '',
    duration: `${log.durationMs.toFixed(1)} ms`,
    key: log.keyStart ?? (log.keyId === undefined ? '—' : `key ${log.keyId}`),
  };
}

const accountOf = (request: Parameters<typeof signedInUser>[0]) => signedInUser(request).user.accountId;

/** `/logs` and `/logs/:logId` (signed in): the account's request logs, filtered by a GET form, and one request's detail. */
export function registerLogsPages(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/logs', { schema: { querystring: LogsQuery } }, async (request, reply) => {
    const { cursor, ...form } = request.query;
    const filters = Object.fromEntries(FILTER_NAMES.map((name) => [name, form[name]?.trim() ?? '']));
    const view = { title: 'Logs', filters, methods: REQUEST_LOG_METHODS, statuses: STATUS_CHOICES, paged: cursor !== undefined && cursor !== '' };
    const filterParams = Object.entries(filters).filter(([, value]) => value !== '');
    try {
      const page = await services.requestLogs.list(accountOf(request), toQuery(form), { limit: PAGE_SIZE, ...(view.paged && cursor !== undefined ? { cursor } : {}) });
      return render(request, reply, 'logs', {
        ...view,
        entries: page.entries.map(logRow),
        first: `/logs?${new URLSearchParams(filterParams).toString()}`,
        next: page.nextCursor === null ? undefined : `/logs?${new URLSearchParams([...filterParams, ['cursor', page.nextCursor]]).toString()}`,
      });
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      const message =
        error.code === 'invalid_cursor'
          ? 'That page link is not valid any more. Start again from the first page.'
          : `${FIELD_LABELS[error.input] ?? error.input} ${error.problem.replace(/^is not valid\. Expected:/, 'is not valid: expected')}`;
      return render(request, reply, 'logs', { ...view, entries: [], first: '/logs', error: message, invalidField: error.input }, 400);
    }
  });

  /** The order a request's path names, when the account has it: its page shows the request beside the order's events and deliveries. */
  async function existingOrder(accountId: number, orderId: bigint | undefined): Promise<bigint | undefined> {
    if (orderId === undefined) return undefined;
    try {
      return (await services.ordersV2.getOrder(accountId, orderId)).id;
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  app.get('/logs/:logId', { schema: { params: LogParams } }, async (request, reply) => {
    const log = await services.requestLogs.find(accountOf(request), BigInt(request.params.logId));
    if (log === undefined) throw new AppError('route_not_found', 'No request log of this account has this id (logs are kept for a limited time).');
    const record = errorRecordOf(log.errorBody);
    const orderId = await existingOrder(accountOf(request), orderIdInPath(log.path));
    return render(request, reply, 'log', {
      title: `${log.method} ${log.path}`,
      log: {
        ...logRow(log),
        at: formatInstant(log.at),
        requestId: log.requestId,
        clientAddress: log.clientAddress ?? '—',
        userAgent: log.userAgent ?? '—',
        apiVersion: log.apiVersion ?? '—',
        keyId: log.keyId,
        orderId: orderId?.toString(),
      },
      error: log.status >= 400 ? { record: record === undefined ? log.errorBody : JSON.stringify(record, null, 2), advice: adviceFor(record?.code ?? log.errorCode, log.status) } : undefined,
    });
  });
}
