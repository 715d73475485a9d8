import type { FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../errors/errors.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The spec's rule (sections 4.3 and 7): a missing or non-JSON Content-Type is
 * a 400, not a 415. JSON means the media type application/json, with any
 * parameters; a charset, if given, must be UTF-8 (RFC 8259 §8.1).
 */
export function requireJsonContentType(request: FastifyRequest): void {
  const header = request.headers['content-type'];
  if (header === undefined || header.trim() === '') {
    throw new AppError('content_type_not_json', 'Send the body as JSON with Content-Type: application/json.');
  }
  const [essence = '', ...parameters] = header.split(';').map((part) => part.trim());
  if (essence.toLowerCase() !== 'application/json') {
    throw new AppError('content_type_not_json', 'The Content-Type must be application/json.');
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (name.toLowerCase() === 'charset' && value.replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') {
      throw new AppError('content_type_not_json', 'JSON bodies must be UTF-8: omit charset or send charset=utf-8.');
    }
  }
}

/** Parses a JSON object body strictly (`example` shows the caller a good body; `prepare` may rewrite the text first, e.g. to keep int64 digits): valid UTF-8, valid JSON, an object (not null, an array or a scalar). */
export function parseJsonObject(body: Buffer, example: string, prepare: (text: string) => string = (text) => text): unknown {
  if (body.length === 0) throw new AppError('malformed_request', `The request body is empty; send a JSON object such as ${example}.`);
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    throw new AppError('malformed_request', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(prepare(text));
  } catch {
    throw new AppError('malformed_request', 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(`The request body must be a JSON object such as ${example}.`);
  }
  return value;
}
