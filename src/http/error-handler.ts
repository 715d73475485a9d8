import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, DatabaseUnavailableError, errorRecord, InvalidInputError, UnavailableError, type ErrorCode, type ErrorRecord } from '../errors/errors.js';
import type { OutageLog } from '../shared/outage-log.js';
import { recordErrorCode } from '../observability/http-metrics.js';
import { JSON_CONTENT_TYPE } from './media-types.js';
import { recordRoutes } from './route-table.js';
import { inputLabel, type RequestPart } from '../api/http/validation-errors.js';

/** Where a route takes each input a service may refuse by name: the request part and the name it has there. */
export type RouteInputs = Readonly<Record<string, readonly [RequestPart, string]>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The inputs of this route that a service names when it refuses them (InvalidInputError). */
    inputs?: RouteInputs;
  }
}

interface ErrorResponse {
  record: ErrorRecord;
  headers: Readonly<Record<string, string>>;
}

/**
 * Writes a refusal or failure, already mapped to its Error record and
 * headers (`error` is what was thrown, for a presenter that knows more
 * kinds). The API hosts answer JSON; the portal answers an HTML page.
 */
export type ErrorPresenter = (request: FastifyRequest, reply: FastifyReply, response: ErrorResponse & { error: unknown }) => FastifyReply;

const presentJson: ErrorPresenter = (request, reply, { record, headers }) =>
  reply
    .code(record.status)
    .headers({ ...headers, 'x-request-id': request.id })
    .type(JSON_CONTENT_TYPE)
    .send(record);

/** Fastify's own errors that a client can cause, and what we answer instead. */
const FRAMEWORK_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'The request body is larger than this endpoint accepts.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'malformed_request', message: 'The request Content-Type is not supported here.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'malformed_request', message: 'The request Content-Length does not match its body.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'malformed_request', message: 'The request says it is JSON but has an empty body.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_request', message: 'The request body is not valid JSON.' },
  FST_ERR_BAD_URL: { code: 'malformed_request', message: 'The request URL is not validly encoded.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'malformed_request', message: 'A path parameter is too long.' },
};

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && typeof (error as Partial<FastifyError>).code === 'string';
}

/**
 * Maps anything thrown while handling a request to the spec's Error record.
 * Only AppErrors and known client faults speak to the client; everything else
 * is an internal error whose details stay in the log.
 */
function toErrorResponse(error: unknown, inputs: RouteInputs = {}): ErrorResponse {
  if (error instanceof InvalidInputError) {
    const where = inputs[error.input];
    const message = where === undefined ? error.message : `${inputLabel(where[0], where[1])} ${error.problem}`;
    return { record: errorRecord(error.code, message), headers: error.headers };
  }
  // Worth retrying as it is: clients are told when (RFC 9110 §10.2.3).
  if (error instanceof UnavailableError) return { record: error.toRecord(), headers: { 'retry-after': '1', ...error.headers } };
  if (error instanceof AppError) return { record: error.toRecord(), headers: error.headers };
  if (error instanceof Error && 'validation' in error && Array.isArray(error.validation)) {
    return { record: errorRecord('validation_failed', error.message), headers: {} };
  }
  if (isFastifyError(error)) {
    const known = FRAMEWORK_ERRORS[error.code];
    if (known !== undefined) return { record: errorRecord(known.code, known.message), headers: {} };
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return { record: errorRecord('malformed_request', 'The request could not be understood.'), headers: {} };
    }
  }
  return { record: errorRecord('internal_error', 'An internal error occurred. It has been logged; retrying may help.'), headers: {} };
}

/** Answers a request with the Error record for `error` (the app's one error handler, see createErrorSender). */
export type ErrorSender = (request: FastifyRequest, reply: FastifyReply, error: unknown) => FastifyReply;

/**
 * The error handler's answer and log line. Internal errors are logged with
 * their stack; refusals the server chose (4xx, load shedding, shutting down,
 * a rolled-back conflict) with their code only; an unreachable database goes
 * to the outage log, which writes one line per outage, not one per request.
 * `present` writes the answer: JSON Error records unless given (the portal
 * writes HTML pages).
 */
export function createErrorSender(outages: Pick<OutageLog, 'databaseUnreachable'>, present: ErrorPresenter = presentJson): ErrorSender {
  return (request, reply, error) => {
    const { record, headers } = toErrorResponse(error, request.routeOptions.config.inputs);
    if (error instanceof DatabaseUnavailableError) outages.databaseUnreachable(error, 'request');
    else if (record.status >= 500 && !(error instanceof AppError)) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: record.code }, 'request refused');
    recordErrorCode(request.raw, record.code);
    return present(request, reply, { record, headers, error });
  };
}

/** Installs the one error handler and the 404/405 handler on the root instance. */
export function installErrorHandling(app: FastifyInstance, sendError: ErrorSender): void {
  const routes = recordRoutes(app);

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.methodsFor(request.url);
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new AppError('method_not_allowed', `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, {
          allow: allowed.join(', '),
        }),
      );
    }
    return sendError(request, reply, new AppError('route_not_found', 'No resource exists at this path.'));
  });
}
