/**
 * What to do about an error answer, in a line, by its code: the Logs
 * detail page shows it under the Error record. Codes without a line of
 * their own get the general advice.
 */
const ADVICE: Readonly<Record<string, string>> = {
  missing_api_key: 'Send the key in the Authorization header: Authorization: Bearer <API key>.',
  invalid_api_key: 'The key is unknown, revoked or mistyped: check the key your code sends against the API keys page, or create a new key.',
  expired_api_key: 'The key has expired: roll it or create a new one on the API keys page, and deploy the new key.',
  insufficient_scope: 'The key lacks the scope this operation needs: create a key with that scope (the message names it), or one without --scopes.',
  rate_limited: 'Slow down: wait as long as Retry-After says, then retry; spread requests out or cache what you read.',
  validation_failed: 'Fix the input the message names and send the request again; retrying it unchanged gets the same answer.',
  malformed_request: 'The request could not be read as HTTP or JSON: check what your client library sends.',
  content_type_not_json: 'Send the body as JSON with Content-Type: application/json.',
  invalid_cursor: 'Pass the nextCursor of the previous page unchanged, with the same filters; or start again from the first page.',
  route_not_found: 'No operation has this path: check the path and the version prefix (/v1 or /v2) against the API reference.',
  method_not_allowed: 'This path does not take this method: check the API reference for the operations it offers.',
  order_not_found: 'No order of this account has that id: check the id your code sends, and that the key belongs to the account that owns the order.',
  order_already_shipped: 'The order has shipped and can no longer be cancelled: nothing to retry.',
  order_already_cancelled: 'The order was cancelled already: treat this as done rather than retrying.',
  order_not_pending: 'Only a pending order can be changed this way: read the order to see its status.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different body: use a new key for a new request.',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still running: retry shortly with the same key and body.',
  endpoint_sunset: 'This operation has been retired: move to its replacement (the Link header names it).',
  payload_too_large: 'The body is larger than the server takes: send less at once.',
  request_timeout: 'The request took too long to arrive: check the client\'s network and retry.',
  service_unavailable: 'The service could not answer just then: retry after the time Retry-After says, with backoff.',
  overloaded: 'The server was too busy: retry after the time Retry-After says, with backoff.',
  internal_error: 'Our fault, not your request\'s: retry with backoff, and give us the request id if it keeps happening.',
};

/** The line shown under an error answer's Error record. */
export function adviceFor(code: string | undefined, status: number): string {
  const advice = code === undefined ? undefined : ADVICE[code];
  if (advice !== undefined) return advice;
  return status >= 500 ? 'The server could not answer: retry with backoff, and give us the request id if it keeps happening.' : 'Read the message above, fix the request it describes and send it again.';
}
