import type { AuditAction, AuditActor, AuditDetails, AuditEntry, AuditTarget, NewAuditEntry } from '../audit/audit-repository.js';

/** An audit_events row as both adapters select it (the time already ISO 8601 text). */
export interface AuditRow {
  id: bigint;
  account_id: bigint;
  at: string;
  actor_kind: string;
  actor_id: bigint | null;
  address: string | null;
  action: string;
  target_kind: string | null;
  target_id: string | null;
  details: string;
}

/** The columns an entry is written to, in the order both adapters insert them. */
export function auditColumns(entry: NewAuditEntry): [number, string, string, number | null, string | null, string, string | null, string | null, string] {
  const actorId = entry.actor.kind === 'user' || entry.actor.kind === 'key' ? entry.actor.id : null;
  return [
    entry.accountId,
    entry.at,
    entry.actor.kind,
    actorId,
    entry.address ?? null,
    entry.action,
    entry.target?.kind ?? null,
    entry.target?.id ?? null,
    JSON.stringify(entry.details),
  ];
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  const entry: AuditEntry = {
    id: BigInt(row.id),
    accountId: Number(row.account_id),
    at: row.at,
    actor: toActor(row.actor_kind, row.actor_id),
    // Written only by the service, from the closed list (a later release's name is passed on as is).
    action: row.action as AuditAction,
    details: JSON.parse(row.details) as AuditDetails,
  };
  if (row.address !== null) entry.address = row.address;
  if (row.target_kind !== null && row.target_id !== null) entry.target = { kind: row.target_kind as AuditTarget['kind'], id: row.target_id };
  return entry;
}

function toActor(kind: string, id: bigint | null): AuditActor {
  if ((kind === 'user' || kind === 'key') && id !== null) return { kind, id: Number(id) };
  return { kind: kind === 'operator' ? 'operator' : 'system' };
}
