import type { AuditContext } from './audit-repository.js';

/** The context of a change no one in particular asked for (the default of services' context arguments). */
export const SYSTEM_CONTEXT: AuditContext = Object.freeze({ actor: Object.freeze({ kind: 'system' as const }) });

/** The operator at the CLI: no client address. */
export const OPERATOR_CONTEXT: AuditContext = Object.freeze({ actor: Object.freeze({ kind: 'operator' as const }) });
