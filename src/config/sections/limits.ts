import { Type } from 'typebox';
import { isTrustedProxyEntry } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): the abuse bounds: rate limits, timeouts, connection caps, load shedding. */

export const limits = Type.Object(
  {
    RATE_LIMIT_REQUESTS: Type.Integer({
      minimum: 0,
      maximum: 1_000_000_000,
      default: 100,
      description: 'Requests one API key (or one client address, unauthenticated) may make per window, per process; `0` turns rate limiting off',
    }),
    RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60, description: 'The rate-limit window' }),
    TRUST_PROXY: Type.Refine(
      Type.Array(Type.String(), {
        default: [],
        description: 'Proxies whose `X-Forwarded-For` is believed: addresses, CIDR ranges, `loopback`, `linklocal` or `uniquelocal`; empty: the header is ignored',
      }),
      (entries) => entries.every(isTrustedProxyEntry),
      (entries) =>
        `TRUST_PROXY must be a comma-separated list of proxy addresses or CIDR ranges (got ${JSON.stringify(entries.find((entry) => !isTrustedProxyEntry(entry)))})`,
    ),
    KEY_USAGE_FLUSH_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000, description: 'How often the last-used times of API keys are written to the database (and at shutdown)' }),
    HEADERS_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 600_000,
      default: 5_000,
      description: 'Time to send the request headers; a client dribbling them (slow loris) gets `408 request_timeout` and is disconnected',
    }),
    REQUEST_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      maximum: 3_600_000,
      default: 15_000,
      description: 'Time to send the whole request, body included (`408`); not less than `HEADERS_TIMEOUT_MS`',
    }),
    KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 72_000,
      description: 'How long an idle keep-alive connection stays open (above typical load-balancer idle timeouts)',
    }),
    MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1024, description: 'Connections per process; further ones are closed on accept' }),
    MAX_CONNECTIONS_PER_ADDRESS: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        description:
          'Connections one client address may hold at once, less than `MAX_CONNECTIONS`; a further one gets `503 overloaded` with `Retry-After` and is closed. ' +
          'Unset: an eighth of `MAX_CONNECTIONS` (128 by default); `0`: no bound. Proxies listed in `TRUST_PROXY` are not bounded',
      }),
    ),
    LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 1000,
      description: 'Mean event-loop delay above which requests get `503 overloaded` with `Retry-After: 5` (`0`: off)',
    }),
    LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0,
      description: 'Event-loop utilisation per second above which the same happens (`0`: off, the default: a busy but healthy process runs near 1)',
    }),
    LOAD_SHED_MAX_HEAP_MB: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Heap use above which the same happens (`0`: off)' }),
  },
  { title: 'Limits' },
);
