import { Type } from 'typebox';
import { isValidHost, parseBaseUrl } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): where the process listens: the store host and the quickstart host. */

export const server = Type.Object(
  {
    PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'TCP port of the store host (`0` picks a free one)' }),
    HOST: Type.Refine(
      Type.String({ default: '127.0.0.1', description: 'Interface to listen on, an IP address or a host name (`0.0.0.0` for all)' }),
      isValidHost,
      (host) => `HOST must be an IP address or a host name (got ${JSON.stringify(host)})`,
    ),
    LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'Least severe level written (pino JSON lines on stdout), any case' }),
    SHUTDOWN_GRACE_MS: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      default: 10_000,
      description: 'How long shutdown waits for in-flight requests before exiting 1',
      errorMessage: 'SHUTDOWN_GRACE_MS must be an integer number of milliseconds from 0 to 600000',
    }),
  },
  { title: 'Server' },
);

export const quickstart = Type.Object(
  {
    QUICKSTART_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], {
      default: 3001,
      description: 'The quickstart host\'s port, on the same `HOST` (`0` picks a free one); `off` disables the host',
    }),
    QUICKSTART_PUBLIC_URL: Type.Refine(
      Type.String({
        default: 'https://quickstart.store.example.com',
        description: 'Where clients reach the quickstart host: the `servers` URL of its OpenAPI document (absolute http(s), no query or fragment); read only when the host is on',
      }),
      (url) => parseBaseUrl(url) !== undefined,
      () => 'QUICKSTART_PUBLIC_URL must be an absolute http(s) URL without query or fragment, e.g. https://quickstart.store.example.com',
    ),
  },
  { title: 'Quickstart host' },
);
