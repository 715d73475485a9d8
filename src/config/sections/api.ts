import { Type } from 'typebox';
import { CURSOR_SECRET_MIN_LENGTH, PRINTABLE, parseInstant, parseVersionedBaseUrl } from '../config-formats.js';

/* Configuration sections (config-schema.ts reads and documents them all): the API as its clients see it: addresses, cursors, the deprecated pet lookup. */

export const api = Type.Object(
  {
    STORE_ENVIRONMENT: Type.Enum(['production', 'staging'], {
      default: 'production',
      description: 'Which deployment this is: decides the API key prefix it issues and accepts (`so_prod_` or `so_stg_`)',
    }),
    CURSOR_SECRET: Type.Optional(
      Type.String({
        minLength: CURSOR_SECRET_MIN_LENGTH,
        pattern: PRINTABLE,
        'x-secret': true,
        description: 'Key that signs v2 listing cursors (e.g. `openssl rand -hex 32`); unset: a key generated once and kept in the database',
        errorMessage: `CURSOR_SECRET must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`,
      }),
    ),
    CURSOR_SECRET_PREVIOUS: Type.Array(Type.String({ minLength: CURSOR_SECRET_MIN_LENGTH, pattern: PRINTABLE }), {
      default: [],
      'x-secret': true,
      description: 'Earlier cursor keys still accepted while cursors signed with them circulate (needs `CURSOR_SECRET`)',
      errorMessage: `CURSOR_SECRET_PREVIOUS must be a comma-separated list of secrets of at least ${CURSOR_SECRET_MIN_LENGTH} printable characters`,
    }),
    PUBLIC_BASE_URL: Type.Optional(
      Type.Refine(
        Type.String({
          description:
            'The production server of the v1 OpenAPI document (v2 uses the same URL ending in `/v2`): an absolute http(s) URL whose path ends in `/v1`, no query or fragment; a trailing `/` is dropped. Unset: the address the server listens on, so that the docs page\'s "Try it out" calls this server',
        }),
        (url) => parseVersionedBaseUrl(url) !== undefined,
        () => 'PUBLIC_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://store.example.com/v1',
      ),
    ),
    STAGING_BASE_URL: Type.Optional(
      Type.Refine(
        Type.String({ description: 'The staging server of both OpenAPI documents (same rules as `PUBLIC_BASE_URL`); unset: no staging server is listed' }),
        (url) => parseVersionedBaseUrl(url) !== undefined,
        () => 'STAGING_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://staging.store.example.com/v1',
      ),
    ),
    PETS_DEPRECATION_DATE: Type.Refine(
      Type.String({
        default: '2026-07-01T00:00:00Z',
        description: 'When the pet lookup was deprecated: an ISO 8601 date (`2026-07-01`, midnight UTC) or a date-time with a zone',
      }),
      (text) => parseInstant(text) !== undefined,
      () => 'PETS_DEPRECATION_DATE must be an ISO 8601 date (2026-07-01) or date-time with a zone (2026-07-01T00:00:00Z)',
    ),
    PETS_SUNSET_DATE: Type.Refine(
      Type.String({
        default: '2027-07-01T00:00:00Z',
        description: 'When the pet lookup stops answering (then 410); same format, not earlier than `PETS_DEPRECATION_DATE`',
      }),
      (text) => parseInstant(text) !== undefined,
      () => 'PETS_SUNSET_DATE must be an ISO 8601 date (2027-07-01) or date-time with a zone (2027-07-01T00:00:00Z)',
    ),
    EVENTS_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'How long events (`GET /v2/events`) are kept; older ones are pruned in the background' }),
    EVENTS_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 3_600_000, description: 'How often the server prunes events older than `EVENTS_RETENTION_DAYS`' }),
  },
  { title: 'API' },
);
