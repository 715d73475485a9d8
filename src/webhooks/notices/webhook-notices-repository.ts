/** Why the service itself disabled an endpoint: its receiver answered 410 Gone, or every attempt failed for 5 days. */
export const SYSTEM_DISABLE_REASONS = ['gone', 'failing'] as const;
export type SystemDisableReason = (typeof SYSTEM_DISABLE_REASONS)[number];

/**
 * An endpoint the service disabled (not a person) whose notice nobody of
 * the account has acknowledged yet: the portal shows it on every page.
 */
export interface DisabledEndpointNotice {
  endpointId: string;
  url: string;
  /** Why, in words (the endpoint's disabled reason). */
  reason: string;
  /** When the service disabled it; null for an endpoint disabled before notices existed whose audit entry was already pruned. */
  disabledAt: string | null;
}

/**
 * Storage of the notices of endpoints the service disabled. The notice is
 * written by the settlement that disables the endpoint (the webhooks
 * adapters, in that transaction); this reads and acknowledges it. Adapters
 * live in src/storage/<database>/.
 */
export interface WebhookNoticesRepository {
  /**
   * The account's endpoints the service disabled whose notice is not
   * acknowledged, by endpoint id: disabled, with a disabled reason (enabling
   * clears it) and no acknowledgement since the last disabling. One read of
   * the account's endpoints index.
   */
  listUnacknowledged(accountId: number): Promise<DisabledEndpointNotice[]>;
  /**
   * Records that user `userId` acknowledged the notice of the account's
   * endpoint at `at`, atomically, only while it is due; the notice it
   * acknowledged, or undefined when there was none (acknowledged already,
   * enabled again, or no such endpoint in the account).
   */
  acknowledge(request: { accountId: number; endpointId: string; userId: number; at: string }): Promise<DisabledEndpointNotice | undefined>;
}
