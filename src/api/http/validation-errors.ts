import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { preValidationHookHandler } from 'fastify';
import { redactApiKeys } from '../../api-keys/api-key-format.js';
import { ValidationError } from '../../errors/errors.js';

/** The parts of a request Fastify validates, by the names its schema errors use. */
export type RequestPart = 'params' | 'querystring' | 'headers' | 'body';

const WHERE: Readonly<Record<string, string>> = {
  params: 'Path parameter',
  querystring: 'Query parameter',
  headers: 'Header',
  body: 'Request body field',
};

/** "Query parameter cursor": an input named as a client sees it. */
export function inputLabel(dataVar: string, name: string): string {
  return `${WHERE[dataVar] ?? 'Request field'} ${name}`;
}

/** "Path parameter orderId is not valid. Expected: <description>" */
export function invalidParameterMessage(dataVar: string, name: string, expected?: string): string {
  const input = inputLabel(dataVar, name);
  return expected === undefined ? `${input} is not valid.` : `${input} is not valid. Expected: ${expected}`;
}

/**
 * Turns the first schema violation into one sentence a client can act on,
 * naming the parameter but never echoing its value (it may be a secret).
 * Needs Ajv's `verbose` option for the schema's description.
 */
export function formatSchemaError(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const first = errors[0];
  if (first === undefined) return new Error(invalidParameterMessage(dataVar, dataVar));
  const missing = (first.params as { missingProperty?: unknown }).missingProperty;
  if (typeof missing === 'string') return new Error(`${WHERE[dataVar] ?? 'Request field'} ${missing} is required.`);
  // Hosts that refuse unknown fields (removeAdditional: false); the name is the client's, so it is not echoed.
  if (first.keyword === 'additionalProperties') {
    return new Error(`${WHERE[dataVar] ?? 'Request field'}s other than the documented ones are not accepted here.`);
  }
  const segments = first.instancePath.split('/').filter(Boolean);
  // Path and query parameters are flat: "status", not "status.1" for a repeated one.
  const name = (dataVar === 'body' ? segments.join('.') : segments[0]) || dataVar;
  const description = (first as { parentSchema?: { description?: unknown } }).parentSchema?.description;
  return new Error(invalidParameterMessage(dataVar, name, typeof description === 'string' ? description : first.message));
}

/**
 * Refuses a query parameter the operation does not define (run before
 * validation: the validator silently drops unknown ones). The name is the
 * client's text: shown only when short and plain, and never a key.
 */
function rejectUnknownParameters(query: unknown, supported: readonly string[]): void {
  if (typeof query !== 'object' || query === null) return;
  const unknown = Object.keys(query).find((name) => !supported.includes(name));
  if (unknown === undefined) return;
  const shown = /^[A-Za-z0-9_.[\]-]{1,64}$/.test(unknown) ? redactApiKeys(unknown) : '(unprintable name)';
  throw new ValidationError(`Query parameter ${shown} is not supported. Supported: ${supported.join(', ')}.`);
}

/**
 * rejectUnknownParameters as a route's preValidation hook, in Fastify's
 * callback form: no promise per request.
 */
export function refuseUnknownParameters(supported: readonly string[]): preValidationHookHandler {
  return (request, _reply, done) => {
    try {
      rejectUnknownParameters(request.query, supported);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}

