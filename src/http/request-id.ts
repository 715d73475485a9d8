import type { IncomingMessage } from 'node:http';
import { looksLikeApiKey } from '../api-keys/api-key-format.js';
import { newRequestUuid } from '../request-logs/request-id-words.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Honours a caller's X-Request-Id when it is short and plain (so it cannot
 * inject into logs or headers) and is not an API key pasted in the wrong
 * header (it would be logged); otherwise makes a new one: a random UUID
 * whose words the request logs copy rather than read back from its text
 * (request-logs/request-id-words.ts).
 */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) && !looksLikeApiKey(incoming) ? incoming : newRequestUuid();
}
