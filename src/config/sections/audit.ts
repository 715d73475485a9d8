import { Type } from 'typebox';

/* Configuration sections (config-schema.ts reads and documents them all): the audit trail. */

export const audit = Type.Object(
  {
    AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 90, description: 'How long audit trail entries are kept; older ones are deleted in the background by the server' }),
    AUDIT_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 3_600_000, description: 'How often the server deletes audit trail entries past their retention' }),
  },
  { title: 'Audit trail' },
);
