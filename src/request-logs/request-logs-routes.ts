import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { principalOf } from '../api/http/authentication.js';
import { refuseUnknownParameters } from '../api/http/validation-errors.js';
import { PAGE_LIMIT_DEFAULT } from '../api/page-bounds.js';
import type { RequestLog } from './request-logs-repository.js';
import { LIST_REQUEST_LOGS_PARAMETERS, listRequestLogsSchema, REQUEST_LOGS_SCOPE, type RequestLogRecord } from './request-logs-schemas.js';
import type { RequestLogsService } from './request-logs-service.js';

const QUERY_INPUTS = Object.fromEntries(LIST_REQUEST_LOGS_PARAMETERS.map((name) => [name, ['querystring', name] as const]));

/** `GET /request-logs` (beta). Expects to be registered under /v2, behind requireApiKey. */
export function registerRequestLogsRoutes(scope: FastifyInstance, { requestLogsService }: { requestLogsService: Pick<RequestLogsService, 'list'> }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/request-logs',
    {
      schema: listRequestLogsSchema,
      config: { scope: REQUEST_LOGS_SCOPE, inputs: QUERY_INPUTS },
      // Before validation: the validator silently drops unknown parameters.
      preValidation: refuseUnknownParameters(LIST_REQUEST_LOGS_PARAMETERS),
    },
    async (request) => {
      const { limit, cursor, keyId, ...filters } = request.query;
      // The schema checked the shapes; the service checks the values and ranges.
      const page = await requestLogsService.list(
        principalOf(request).accountId,
        { ...filters, ...(keyId === undefined ? {} : { keyId: Number(keyId) }) },
        { limit: limit === undefined ? PAGE_LIMIT_DEFAULT : Number(limit), ...(cursor === undefined ? {} : { cursor }) },
      );
      return { data: page.entries.map(toRequestLogRecord), nextCursor: page.nextCursor };
    },
  );
}

/** The Error record a stored error body holds, if it is one. */
export function errorRecordOf(body: string | undefined): { code: string; message: string; status: number } | undefined {
  if (body === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { code, message, status } = parsed as Record<string, unknown>;
    return typeof code === 'string' && typeof message === 'string' && typeof status === 'number' ? { code, message, status } : undefined;
  } catch {
    return undefined;
  }
}

/** The stored entry as the API shows it: minus its account (the caller's own), the error body as the record it is. */
function toRequestLogRecord(log: RequestLog): RequestLogRecord {
  const record: RequestLogRecord = { id: log.id, at: log.at, method: log.method, path: log.path, status: log.status, durationMs: log.durationMs, requestId: log.requestId };
  if (log.errorCode !== undefined) record.errorCode = log.errorCode;
  if (log.keyId !== undefined) record.key = log.keyStart === undefined ? { id: log.keyId } : { id: log.keyId, start: log.keyStart };
  if (log.clientAddress !== undefined) record.clientAddress = log.clientAddress;
  if (log.userAgent !== undefined) record.userAgent = log.userAgent;
  if (log.apiVersion !== undefined) record.apiVersion = log.apiVersion;
  const response = errorRecordOf(log.errorBody);
  // The record as stored: the code is the one the server sent, possibly a code a later release added.
  if (response !== undefined) record.response = response as RequestLogRecord['response'];
  return record;
}
