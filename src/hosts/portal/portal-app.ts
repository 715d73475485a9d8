import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config, PortalConfig } from '../../config/config.js';
import type { Services } from '../../services.js';
import { createHttpApp, type HttpTracing } from '../../http/http-app.js';
import type { SignInMetrics } from './portal-metrics.js';
import type { HttpMetrics } from '../../observability/http-metrics.js';
import type { RateLimiter } from '../../http/protection/rate-limit.js';
import type { Clock } from '../../shared/clock.js';
import type { OutageLog } from '../../shared/outage-log.js';
import type { ApiAddresses, PortalContext } from './portal-context.js';
import { portalOrigin } from './portal-origin.js';
import { createPageRenderer, htmlErrorPresenter } from './portal-render.js';
import { registerTwoStepSignInPages, registerTwoStepSettingsPages } from './pages/two-step-pages.js';
import { cookieNames, installFormProtection, installPortalHeaders } from './portal-security.js';
import { createSessionCookies, requireSignedIn } from './portal-session.js';
import { loadPortalAssets, registerPortalAssets } from './assets/portal-assets.js';
import { registerAccountDeletionPages } from './pages/account-deletion-pages.js';
import { registerAuditPages } from './pages/audit-pages.js';
import { registerLogsPages } from './pages/logs-pages.js';
import { registerTeamPages } from './pages/team-pages.js';
import { registerHomePage } from './pages/home-page.js';
import { registerKeysPages } from './pages/keys-pages.js';
import { registerPasskeySettingsPages, registerPasskeySignInPages } from './pages/passkey-pages.js';
import { registerOrdersPages } from './pages/orders-pages.js';
import { registerOrderPage } from './pages/order-page.js';
import { registerResetPasswordPages } from './pages/reset-password-pages.js';
import { registerSessionsPages } from './pages/sessions-pages.js';
import { registerSettingsPages } from './pages/settings-pages.js';
import { registerSignInPages } from './pages/sign-in-pages.js';
import { registerSignUpPages } from './pages/sign-up-pages.js';
import { registerSignUpLinkPages } from './pages/sign-up-link-pages.js';
import { registerWebhooksPages } from './pages/webhooks-pages.js';
import { registerWebhookNoticePages } from './pages/webhook-notice-pages.js';
import { devMailboxAvailable, registerDevMailboxPages, registerDevSignUpMailPage } from './pages/dev-mailbox-pages.js';
import { registerResendVerificationPage, registerVerifyEmailPage } from './pages/email-verification-pages.js';

export interface PortalAppDependencies {
  logger: FastifyBaseLogger;
  services: Services;
  config: Pick<Config, 'host' | 'port' | 'limits' | 'publicBaseUrl' | 'stagingBaseUrl' | 'mail'> & { portal: PortalConfig };
  /** The store host's address once it listens (`http://127.0.0.1:3000`): the API's URL when PUBLIC_BASE_URL is unset. */
  storeAddress: () => string | undefined;
  /** Shared with the API hosts: one budget per client address and process. */
  rateLimiter: RateLimiter;
  /** The process's HTTP metrics; this host's series carry `server="portal"`. */
  httpMetrics: HttpMetrics;
  /** The portal's own counter of sign-in attempts. */
  signInMetrics: SignInMetrics;
  /** The services' clock: the times pages show (tests move it). */
  clock: Clock;
  /** Where expected failures go (the database unreachable), shared with the API hosts. */
  outages: OutageLog;
  /** @fastify/otel while tracing is on, else null. */
  tracing: HttpTracing | null;
}

/** Forms are small: this bounds what a client can make the portal read. */
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Builds the self-service portal host (docs/portal.md): server-rendered
 * pages over the same services as the API hosts, signed in with a password
 * and a server-side session, never with an API key (the API hosts, in turn,
 * never read the session cookie). It never listens; server.ts does.
 */
export async function buildPortalApp({ logger, services, config, storeAddress, rateLimiter, httpMetrics, signInMetrics, clock, outages, tracing }: PortalAppDependencies): Promise<FastifyInstance> {
  const assets = await loadPortalAssets();
  const devMailbox = devMailboxAvailable(config);
  const render = createPageRenderer({ cache: true, assets, devMailbox });
  const app = await createHttpApp({
    logger: logger.child({ host: 'portal' }),
    bodyLimit: BODY_LIMIT_BYTES,
    limits: config.limits,
    rateLimiter,
    metrics: httpMetrics.host('portal'),
    present: htmlErrorPresenter(render),
    outages,
    tracing,
  });
  app.decorateRequest('signedIn', undefined);
  app.decorateRequest('memberships', undefined);
  app.decorateRequest('webhookNotices', undefined);
  const origin = () => portalOrigin(config.portal, config.host, app.server);
  // Decided once: the cookie names depend on the scheme, which a derived origin (always http) cannot change.
  const cookies = cookieNames(origin());
  installPortalHeaders(app);
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: BODY_LIMIT_BYTES });
  await installFormProtection(app, { origin, cookies });
  registerPortalAssets(app, assets);

  const context: PortalContext = {
    services,
    render,
    sessions: createSessionCookies({ sessions: services.sessions, cookies }),
    cookies,
    throttle: services.attemptThrottle,
    origin,
    clock,
    signIns: (method, result) => signInMetrics.signIn(method, result),
    api: (): ApiAddresses => ({
      production: config.publicBaseUrl ?? `${storeAddress() ?? `http://${config.host}:${config.port}`}/v1`,
      ...(config.stagingBaseUrl === undefined ? {} : { staging: config.stagingBaseUrl }),
    }),
  };
  registerSignInPages(app, context);
  registerTwoStepSignInPages(app, context);
  registerSignUpPages(app, context, { devMailbox });
  registerSignUpLinkPages(app, context);
  if (devMailbox) registerDevSignUpMailPage(app, context);
  registerResetPasswordPages(app, context);
  registerPasskeySignInPages(app, context);
  registerVerifyEmailPage(app, context);
  // Every page below needs a signed-in user (portal-session.ts); add new signed-in pages here.
  await app.register(async (signedIn) => {
    requireSignedIn(signedIn, context.sessions, {
      memberships: (userId) => services.team.memberships(userId),
      audit: services.audit,
      ...(config.portal.requireTwoStep ? { mustSetUpTwoStep: async (userId: number) => !(await services.twoStep.isOn(userId)) } : {}),
    });
    // First after the guard: the failure notices every page below shows.
    registerWebhookNoticePages(signedIn, context);
    registerHomePage(signedIn, context);
    registerSettingsPages(signedIn, context);
    registerResendVerificationPage(signedIn, context);
    registerSessionsPages(signedIn, context);
    registerKeysPages(signedIn, context);
    registerOrdersPages(signedIn, context);
    registerOrderPage(signedIn, context);
    registerAuditPages(signedIn, context);
    registerLogsPages(signedIn, context);
    registerTeamPages(signedIn, context);
    registerAccountDeletionPages(signedIn, context);
    registerPasskeySettingsPages(signedIn, context);
    registerTwoStepSettingsPages(signedIn, context);
    registerWebhooksPages(signedIn, context);
    if (devMailbox) registerDevMailboxPages(signedIn, context);
  });
  return app;
}
