import type { AccountsRepository } from '../accounts/accounts-repository.js';
import type { ApiKeysRepository } from '../api-keys/api-keys-repository.js';
import type { DatabaseConfig } from '../config/config.js';
import type { MessagesRepository } from '../messages/messages-repository.js';
import type { IdempotencyRepository } from '../idempotency/idempotency-repository.js';
import type { OrdersRepository } from '../orders/orders-repository.js';
import type { SecretsRepository } from '../secrets/secrets-repository.js';
import type { PetsRepository } from '../pets/pets-repository.js';
import type { SessionsRepository } from '../users/sessions-repository.js';
import type { TeamRepository } from '../users/team/team-repository.js';
import type { AttemptThrottleRepository } from '../users/attempt-throttle-repository.js';
import type { UsersRepository } from '../users/users-repository.js';
import type { SignUpsRepository } from '../users/sign-up/sign-ups-repository.js';
import type { AuditRepository } from '../audit/audit-repository.js';
import type { PasskeysRepository } from '../users/passkeys-repository.js';
import type { TwoStepRepository } from '../users/two-step/two-step-repository.js';
import type { EventsRepository } from '../events/events-repository.js';
import type { WebhooksRepository } from '../webhooks/webhooks-repository.js';
import type { SystemDisableReason, WebhookNoticesRepository } from '../webhooks/notices/webhook-notices-repository.js';
import type { MailRepository } from '../mail/mail-repository.js';
import type { RequestLogsRepository } from '../request-logs/request-logs-repository.js';
import type { UsageRepository } from '../usage/usage-repository.js';

export interface MigrationReport {
  /** Migrations applied by this call, e.g. ["0001-initial"]. */
  applied: string[];
  /** The schema version after the call. */
  version: number;
}

/** One database: the repositories of every capability, plus its lifecycle. */
export interface Storage {
  readonly kind: DatabaseConfig['kind'];
  readonly accounts: AccountsRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly orders: OrdersRepository;
  readonly secrets: SecretsRepository;
  readonly pets: PetsRepository;
  readonly messages: MessagesRepository;
  readonly idempotency: IdempotencyRepository;
  readonly users: UsersRepository;
  /** Sign-ups pending until the link mailed to their address is followed (written with their mail). */
  readonly signUps: SignUpsRepository;
  readonly sessions: SessionsRepository;
  /** Memberships (user × account × role) and invitations. */
  readonly team: TeamRepository;
  /** The portal's attempt throttle (sign-in, sign-up, reset, verification): one budget for every process. */
  readonly attemptThrottle: AttemptThrottleRepository;
  readonly audit: AuditRepository;
  readonly passkeys: PasskeysRepository;
  /** Two-step sign-in: each user's authenticator app, recovery codes and sign-ins waiting for a code. */
  readonly twoStep: TwoStepRepository;
  /** The outbox of order and message events, read by the feed; written only inside the orders and messages adapters' transactions. */
  readonly events: EventsRepository;
  readonly webhooks: WebhooksRepository;
  /** The notices of endpoints the service disabled (written by the webhooks settlements that disable them). */
  readonly webhookNotices: WebhookNoticesRepository;
  /** Outgoing mail and its delivery queue (written on its own, or by a change in its transaction: the adapters' `insertMail`). */
  readonly mail: MailRepository;
  /** The store host's request logs, appended in batches by the recorder and pruned by age. */
  readonly requestLogs: RequestLogsRepository;
  /** The per account-hour usage counters, written with the request logs' batches and the webhook settlements. */
  readonly usage: UsageRepository;
  /**
   * Registers `listener` for the commits that queue webhook deliveries: this
   * process's at once (after the commit); on PostgreSQL, once
   * `watchOtherProcesses` is called, other processes' too. Returns what
   * unregisters it.
   */
  onDeliveriesQueued(listener: () => void): () => void;
  /**
   * Registers `listener` for this process's settlements that disable a
   * webhook endpoint (a 410, or failing for 5 days), told once each after
   * its commit; returns what unregisters it.
   */
  onEndpointDisabled(listener: (reason: SystemDisableReason) => void): () => void;
  /**
   * Registers `listener` for this process's commits that queue mail, told
   * after the commit (the mail engine's hand-off; other processes' mail is
   * found by its poll). Returns what unregisters it.
   */
  onMailQueued(listener: () => void): () => void;
  /**
   * Learns of other processes' commits that queue deliveries, where the
   * database can tell (PostgreSQL's LISTEN on a connection of its own);
   * resolves to how, or to why not (SQLite; a transaction-mode pooler that
   * drops notifications), in words for the log: then the engine's poll
   * finds them. Ends with close().
   */
  watchOtherProcesses(): Promise<{ watching: boolean; how: string }>;
  /** Creates or upgrades the schema; safe to call from several processes at once. */
  migrate(): Promise<MigrationReport>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** A pool's connections right now, for metrics; undefined where there is no pool (SQLite). */
  connections(): { inUse: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
}
