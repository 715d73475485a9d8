import type { PasskeysService } from './users/passkeys-service.js';
import type { TwoStepService } from './users/two-step/two-step-service.js';
import type { AccountsService } from './accounts/accounts-service.js';
import type { KeyUsageRecorder } from './api-keys/api-key-usage.js';
import type { ApiKeysService } from './api-keys/api-keys-service.js';
import type { AuditService } from './audit/audit-service.js';
import type { MessagesService } from './messages/messages-service.js';
import type { IdempotencyService } from './idempotency/idempotency-service.js';
import type { OrderOperationsService } from './orders/operations/order-operations-service.js';
import type { OrdersService } from './orders/v1/orders-service.js';
import type { OrdersV2Service } from './orders/v2/orders-v2-service.js';
import type { PetsService } from './pets/pets-service.js';
import type { SessionsService } from './users/sessions-service.js';
import type { TeamService } from './users/team/team-service.js';
import type { AttemptThrottle } from './users/attempt-throttle.js';
import type { UsersService } from './users/users-service.js';
import type { SignUpService } from './users/sign-up/sign-up-service.js';
import type { EmailVerificationService } from './users/email-verification.js';
import type { EventsService } from './events/events-service.js';
import type { OrderHistoryService } from './orders/history/order-history-service.js';
import type { WebhooksService } from './webhooks/webhooks-service.js';
import type { WebhookNoticesService } from './webhooks/notices/webhook-notices-service.js';
import type { MailService } from './mail/mail-service.js';
import type { RequestLogRecorder } from './request-logs/request-log-recorder.js';
import type { RequestLogsService } from './request-logs/request-logs-service.js';
import type { UsageService } from './usage/usage-service.js';

/**
 * Every service of one process, as the composition root builds them and the
 * hosts and the CLI use them. A type only: hosts depend on it without
 * depending on the root that wires them.
 */
export interface Services {
  accounts: AccountsService;
  apiKeys: ApiKeysService;
  keyUsage: KeyUsageRecorder;
  orders: OrdersService;
  /** Placing, importing and shipping orders, and the operator's view (not v1's or v2's operations). */
  orderOperations: OrderOperationsService;
  ordersV2: OrdersV2Service;
  /** An order with the requests that named it, its events and their webhook deliveries (the portal's order page). */
  orderHistory: OrderHistoryService;
  pets: PetsService;
  messages: MessagesService;
  idempotency: IdempotencyService;
  /** Portal users (sign-up, sign-in, passwords, the operator's links). */
  users: UsersService;
  /** Self-service sign-up without an invitation: the form, the mailed link, the account it creates. */
  signUp: SignUpService;
  /** Portal users' addresses: verification links, PORTAL_REQUIRE_VERIFIED_EMAIL, change of email. */
  emailVerification: EmailVerificationService;
  /** Portal sessions. */
  sessions: SessionsService;
  /** An account's members, roles and invitations. */
  team: TeamService;
  /** The portal's sign-in, sign-up, reset and verification throttle, kept in the database. */
  attemptThrottle: AttemptThrottle;
  audit: AuditService;
  /** Portal passkeys (WebAuthn). */
  passkeys: PasskeysService;
  /** Portal two-step sign-in (an authenticator app's codes, recovery codes). */
  twoStep: TwoStepService;
  events: EventsService;
  webhooks: WebhooksService;
  /** The notices of webhook endpoints the service disabled, until a user acknowledges them. */
  webhookNotices: WebhookNoticesService;
  /** Outgoing mail: composed, sealed and queued here, sent by the mail engine (background-work.ts). */
  mail: MailService;
  /** The store host's request logs: the listing, the detail, the pruning. */
  requestLogs: RequestLogsService;
  /** Usage at a glance (the portal's home): the per account-hour counters, read. */
  usage: UsageService;
  /** Buffers the store host's requests in memory and writes them in batches (started by background-work.ts). */
  requestLogRecorder: RequestLogRecorder;
}
