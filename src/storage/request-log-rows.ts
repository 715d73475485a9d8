import type { ApiVersion, NewRequestLog, RequestLog } from '../request-logs/request-logs-repository.js';

/** A request_logs row as both adapters select it (the time already ISO 8601 text, the key's start joined from api_keys). */
export interface RequestLogRow {
  id: bigint | string;
  account_id: bigint | string;
  at: string;
  method: string;
  path: string;
  status: number | bigint;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  key_id: bigint | string | null;
  key_start: string | null;
  client_address: string | null;
  user_agent: string | null;
  api_version: string | null;
  error_body: string | null;
}

/** The columns an entry is written to, in the order both adapters insert them (REQUEST_LOG_INSERT_COLUMNS). */
export const REQUEST_LOG_INSERT_COLUMNS =
  'account_id, at, method, path, status, error_code, duration_ms, request_id, key_id, client_address, user_agent, api_version, error_body';

export function requestLogColumns(entry: NewRequestLog): [number, string, string, string, number, string | null, number, string, number | null, string | null, string | null, string | null, string | null] {
  return [
    entry.accountId,
    entry.at,
    entry.method,
    entry.path,
    entry.status,
    entry.errorCode ?? null,
    entry.durationMs,
    entry.requestId,
    entry.keyId ?? null,
    entry.clientAddress ?? null,
    entry.userAgent ?? null,
    entry.apiVersion ?? null,
    entry.errorBody ?? null,
  ];
}

export function toRequestLog(row: RequestLogRow): RequestLog {
  const log: RequestLog = {
    id: BigInt(row.id),
    accountId: Number(row.account_id),
    at: row.at,
    method: row.method,
    path: row.path,
    status: Number(row.status),
    durationMs: Number(row.duration_ms),
    requestId: row.request_id,
  };
  if (row.error_code !== null) log.errorCode = row.error_code;
  if (row.key_id !== null) log.keyId = Number(row.key_id);
  if (row.key_start !== null) log.keyStart = row.key_start;
  if (row.client_address !== null) log.clientAddress = row.client_address;
  if (row.user_agent !== null) log.userAgent = row.user_agent;
  // Written only from API_VERSIONS.
  if (row.api_version !== null) log.apiVersion = row.api_version as ApiVersion;
  if (row.error_body !== null) log.errorBody = row.error_body;
  return log;
}
