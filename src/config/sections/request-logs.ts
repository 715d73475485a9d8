import { Type } from 'typebox';

/* Configuration sections (config-schema.ts reads and documents them all): the store host's request logs (docs/request-logs.md). */

export const requestLogs = Type.Object(
  {
    REQUEST_LOGS: Type.Enum(['on', 'off'], {
      default: 'on',
      description: 'Whether the store host logs each request that names an account, for `GET /v2/request-logs` and the portal\'s Logs page',
    }),
    REQUEST_LOG_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 14, description: 'How long request logs are kept; older ones are deleted in the background by the server' }),
    REQUEST_LOG_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 3_600_000, description: 'How often the server deletes request logs past their retention' }),
    REQUEST_LOG_FLUSH_MS: Type.Integer({
      minimum: 10,
      maximum: 1000,
      default: 1000,
      description: 'How often buffered request logs are written in one batch: at most this much of them is lost if the process is killed',
    }),
  },
  { title: 'Request logs' },
);
