import type { Config } from '../../config/config.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { normalizeDateTime } from '../../shared/date-time.js';
import { parseDuration } from '../../shared/duration.js';
import { eventTypesOption, JSON_OPTION, optionalString, optionOrEnvironment, requiredString, UsageError, type CliOptions, type OptionValues } from '../cli-args.js';
import { CommandFailed } from '../cli-errors.js';
import { localBaseUrl } from '../local-server.js';
import { createEventsFeedClient, FeedRefused, FeedUnavailable } from '../listen/events-feed-client.js';
import { POLL_INTERVAL_MS, runListenLoop, type ListenStart } from '../listen/listen-loop.js';
import { listenSecretPath, loadOrCreateListenSecret } from '../listen/listen-secret.js';
import type { ClientCommand } from './command.js';

const OPTIONS = {
  'forward-to': { type: 'string', value: '<url>', description: 'Your local receiver, e.g. http://localhost:8080/webhooks: each event is POSTed there, signed', required: true },
  events: { type: 'string', value: '<t1,t2>', description: `Only these event types, comma-separated, among ${EVENT_TYPES.join(', ')} (default: every type)` },
  since: {
    type: 'string',
    value: '<10m|ISO 8601>',
    description: 'Replay first the events created since then (a duration ago, or a date-time with an offset); default: only events from now on',
  },
  'base-url': { type: 'string', value: '<url>', env: 'STORE_ORDERS_URL', description: 'The Store Orders server, e.g. https://store.example.com' },
  'api-key': { type: 'string', value: '<key>', env: 'STORE_ORDERS_API_KEY', description: 'Your API key, with the scope events:read' },
  json: { ...JSON_OPTION.json, description: 'Print the Ready record, then each event\'s outcome, as one JSON object per line on stdout' },
} as const satisfies CliOptions;

/** An absolute http(s) URL without credentials; `what` names where it came from. Never echoed: it could hold a token. */
function httpUrl(text: string, what: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`${what} must be an absolute http or https URL`);
  return url;
}

/** The server's address without a version prefix, ending in a slash: what /v2/events is resolved against. */
function serverBase(values: OptionValues, config: Config, env: Readonly<Record<string, string | undefined>>): URL {
  const given = optionOrEnvironment(values, 'base-url', OPTIONS['base-url'], env);
  if (given === undefined && config.port === 0) throw new UsageError('give the server\'s address with --base-url or STORE_ORDERS_URL (PORT=0 names no port to find the local serve at)');
  const url = httpUrl(given ?? localBaseUrl(config), '--base-url (or STORE_ORDERS_URL)');
  if (url.username !== '' || url.password !== '') throw new UsageError('--base-url (or STORE_ORDERS_URL) must not contain credentials: the API key is all listen sends');
  if (url.search !== '' || url.hash !== '') throw new UsageError('--base-url (or STORE_ORDERS_URL) must not have a query or a fragment');
  // The server's address, with or without the /v1 (or /v2) prefix the API documents give.
  url.pathname = `${url.pathname.replace(/\/+$/, '').replace(/\/v[12]$/, '')}/`;
  return url;
}

function startOption(values: OptionValues): ListenStart {
  const since = optionalString(values, 'since');
  if (since === undefined) return { from: 'now' };
  const ms = parseDuration(since);
  if (ms !== undefined) return { from: 'ago', ms };
  const at = normalizeDateTime(since);
  if (at === undefined) throw new UsageError('--since must be a duration such as 10m, 2h or 1d, or an ISO 8601 date-time with an offset');
  return { from: 'instant', at };
}

/** A refusal of the feed in the developer's terms: which key, which scope, which address. */
function refusalMessage(error: FeedRefused, where: string): string {
  if (error.status === 401) return `the server at ${where} refused the API key: ${error.message} Check STORE_ORDERS_API_KEY (or --api-key).`;
  if (error.status === 403 && error.code === 'insufficient_scope') {
    return 'the API key lacks the scope events:read, which listen needs to read the events feed (GET /v2/events). Use a key that holds it (keys created without --scopes do).';
  }
  if (error.status === 404) return `${where} has no events feed (GET /v2/events answered 404): is --base-url (or STORE_ORDERS_URL) the Store Orders server?`;
  return `the server at ${where} refused to list events: ${error.message}`;
}

export const listenCommand: ClientCommand = {
  kind: 'client',
  name: 'listen',
  summary: 'Forward your account\'s events to a local receiver, signed as webhooks are, with your API key: no endpoint, no public URL',
  example: 'STORE_ORDERS_API_KEY=so_… store-orders listen --forward-to http://localhost:8080/webhooks',
  options: OPTIONS,
  details: [
    'Follows the events feed of the API key\'s account (GET /v2/events, scope events:read) on a running server and POSTs each event to --forward-to ' +
      'with the body and the signed headers (Standard Webhooks) a webhook endpoint gets. The signing secret (whsec_…) is made on the first run and kept ' +
      'in $XDG_CONFIG_HOME/store-orders/listen-secret (~/.config/store-orders/listen-secret), so it stays the same across runs; it is printed at start.',
    `One line per event: the time, type and id, then -> the receiver's status, or why it failed, and how long it took. Each event is forwarded once ` +
      `(a failure is reported, not retried); the feed is read every ${POLL_INTERVAL_MS / 1000} s. Ctrl-C stops it (exit 0). ` +
      'An unreachable server, a refused key or a key without events:read exits 1.',
    'Prefer STORE_ORDERS_API_KEY to --api-key: a flag shows in the process list. Without --base-url or STORE_ORDERS_URL, the server is the local ' +
      'serve of this configuration (HOST and PORT).',
  ],
  async run({ config, values, io, print }) {
    const forwardTo = httpUrl(requiredString(values, 'forward-to'), '--forward-to');
    const types = eventTypesOption(values, 'events');
    if (types?.length === 0) throw new UsageError('--events names no event type');
    const start = startOption(values);
    const base = serverBase(values, config, io.env);
    const apiKey = optionOrEnvironment(values, 'api-key', OPTIONS['api-key'], io.env);
    if (apiKey === undefined) throw new UsageError('listen needs your API key: set STORE_ORDERS_API_KEY (or pass --api-key)');
    const secretFile = listenSecretPath(io.env);
    const secret = await loadOrCreateListenSecret(secretFile);

    const interrupt = new AbortController();
    // Registered before the first request: a Ctrl-C from here on ends the run cleanly.
    const stopListening = io.onInterrupt?.(() => interrupt.abort()) ?? (() => undefined);
    const feed = createEventsFeedClient({ base, apiKey });
    try {
      await runListenLoop({
        feed,
        filter: { types },
        start,
        forwardTo,
        secret,
        timeoutMs: config.webhooks.timeoutMs,
        print,
        stderr: io.stderr,
        signal: interrupt.signal,
        onReady: ({ createdFrom }) =>
          print.result(
            { ready: true, secret, secretFile, server: feed.where, forwardTo: forwardTo.href, eventTypes: types ?? null, createdFrom },
            [
              `Ready. Your webhook signing secret is ${secret} (kept in ${secretFile}).`,
              `Forwarding ${types === undefined ? 'every event' : types.join(', ')} of the key's account from ${feed.where} to ${forwardTo.href}` +
                `${start.from === 'now' ? '' : `, replaying those created since ${createdFrom}`}. Ctrl-C to stop.`,
            ].join('\n'),
          ),
      });
    } catch (error) {
      if (interrupt.signal.aborted) return;
      if (error instanceof FeedRefused) throw new CommandFailed(refusalMessage(error, feed.where));
      if (error instanceof FeedUnavailable) {
        throw new CommandFailed(error.answered ? error.message : `${error.message}. Is it running? Its address comes from --base-url or STORE_ORDERS_URL.`);
      }
      throw error;
    } finally {
      stopListening();
    }
  },
};
