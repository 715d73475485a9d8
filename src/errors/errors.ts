/**
 * The closed set of error codes the API can answer with, each bound to one
 * HTTP status. The error table of docs/errors.md and the OpenAPI document list exactly
 * these; adding a code means adding it here first.
 */
export const ERROR_STATUS = {
  validation_failed: 400,
  malformed_request: 400,
  invalid_cursor: 400,
  content_type_not_json: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  expired_api_key: 401,
  insufficient_scope: 403,
  route_not_found: 404,
  order_not_found: 404,
  account_not_found: 404,
  api_key_not_found: 404,
  pet_not_found: 404,
  message_not_found: 404,
  webhook_endpoint_not_found: 404,
  webhook_delivery_not_found: 404,
  event_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  expectation_failed: 417,
  order_already_shipped: 409,
  order_not_pending: 409,
  order_already_cancelled: 409,
  order_id_taken: 409,
  pet_id_taken: 409,
  webhook_endpoint_exists: 409,
  webhook_endpoint_limit_reached: 409,
  idempotency_key_in_use: 409,
  endpoint_sunset: 410,
  payload_too_large: 413,
  idempotency_key_reused: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The spec's Error record (section 2): all three fields required. */
export interface ErrorRecord {
  code: ErrorCode;
  message: string;
  status: ErrorStatus;
}

/**
 * An error whose message is safe to show to the client. Anything thrown that
 * is not an AppError is treated as an internal fault and never echoed.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }

  toRecord(): ErrorRecord {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export class NotFoundError extends AppError {
  constructor(
    code: 'order_not_found' | 'route_not_found' | 'account_not_found' | 'api_key_not_found' | 'pet_not_found' | 'message_not_found' | 'event_not_found',
    message: string,
  ) {
    super(code, message);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends AppError {
  constructor(
    code: 'order_already_shipped' | 'order_not_pending' | 'order_id_taken' | 'order_already_cancelled' | 'pet_id_taken',
    message: string,
  ) {
    super(code, message);
    this.name = 'ConflictError';
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super('validation_failed', message);
    this.name = 'ValidationError';
  }
}

/**
 * A caller's input that breaks a rule of the domain, named as the domain
 * names it (`input`) with what is wrong (`problem`, a sentence that follows
 * the name). The HTTP layer says where the input travelled ("Query parameter
 * cursor", "Header idempotency-key"); elsewhere the message is the name and
 * the problem.
 */
export class InvalidInputError extends AppError {
  constructor(
    readonly input: string,
    readonly problem: string,
    code: 'validation_failed' | 'invalid_cursor' = 'validation_failed',
  ) {
    super(code, `${input} ${problem}`);
    this.name = 'InvalidInputError';
  }
}

/** Storage cannot answer right now (unreachable, busy, a rolled-back conflict): the same request may succeed when retried. */
export class UnavailableError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('service_unavailable', message);
    if (options !== undefined) this.cause = options.cause;
    this.name = 'UnavailableError';
  }
}

/**
 * The database itself cannot be reached (down, restarting, out of
 * connections, too slow): an outage rather than this request's fault, logged
 * once per outage (shared/outage-log.ts) rather than once per request.
 */
export class DatabaseUnavailableError extends UnavailableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

export function errorRecord(code: ErrorCode, message: string): ErrorRecord {
  return { code, message, status: ERROR_STATUS[code] };
}
