/**
 * The portal host in tests: built by the real builder over a fresh database
 * of a backend, with a cookie-keeping client that fills in the CSRF token
 * and the Origin header as a browser would (or leaves them out, to forge).
 * Every portal page's HTTP tests use it; test/support/browser.ts is its
 * real-browser counterpart.
 */
import type { TestContext } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildPortalApp } from '../../src/hosts/portal/portal-app.js';
import { portalOrigin } from '../../src/hosts/portal/portal-origin.js';
import type { Config, DatabaseConfig } from '../../src/config/config.js';
import { createRateLimiter } from '../../src/http/protection/rate-limit.js';
import { createHttpMetrics } from '../../src/observability/http-metrics.js';
import { createMetricsRegistry } from '../../src/observability/metrics-registry.js';
import { createSignInMetrics } from '../../src/hosts/portal/portal-metrics.js';
import type { Registry } from 'prom-client';
import type { Services } from '../../src/services.js';
import type { Clock } from '../../src/shared/clock.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { buildTestStoreApp, testOutages } from './app.js';
import { testConfig, testServices } from './container.js';
import { capturingLogger } from './logs.js';
import { manualClock } from './quickstart.js';
import type { TestBackend } from './storage.js';
import { portalLink } from '../../src/mail/mail-links.js';
import { signUpConfirmationMail } from '../../src/mail/mail-templates.js';
import { hashPassword } from '../../src/users/passwords.js';
import { newSecretToken, tokenHash } from '../../src/users/secret-tokens.js';
import { SIGN_UP_VALID_MS } from '../../src/users/sign-up/sign-up-service.js';
import { normaliseEmail } from '../../src/users/user-input.js';
import type { User } from '../../src/users/users-repository.js';

/** The origin test portals are configured with (PORTAL_PUBLIC_URL), so that inject requests can carry it. */
export const TEST_PORTAL_ORIGIN = 'http://portal.test';

/** A strong enough password for tests (12+ characters). */
export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestPortal {
  app: FastifyInstance;
  services: Services;
  storage: Storage;
  /** Where `storage` is (for raw reads in tests). */
  database: DatabaseConfig;
  config: Config;
  /** The clock of the services and the throttle; `advance` moves it. */
  clock: ReturnType<typeof manualClock>;
  logs: string[];
  /** The registry of the portal's metrics (a scrape reads `registry.metrics()`). */
  registry: Registry;
  /** A new browser-like client (its own cookie jar). */
  client(): PortalClient;
  /**
   * The same portal as another process would run it: its own storage
   * connection to the same database, its own services and throttle.
   * `client.app` of a client can be pointed at it with `withApp`.
   */
  anotherProcess(): Promise<FastifyInstance>;
}

/**
 * A portal over a fresh database of `backend`. `env` adds variables to the
 * test configuration (PORTAL_PUBLIC_URL is TEST_PORTAL_ORIGIN unless given;
 * RATE_LIMIT_REQUESTS is 0 unless given, so that a test's many requests
 * meet the portal's own throttle, not the API's per-address limit).
 */
export async function createTestPortal(
  t: TestContext,
  backend: TestBackend,
  {
    env = {},
    storeAddress = () => 'http://127.0.0.1:3000',
    over,
    derivedOrigin = false,
  }: {
    env?: Record<string, string>;
    /** The store host's address the pages show (the API's URL). */
    storeAddress?: () => string | undefined;
    /** The database of a store host built by createTestApp, so that the portal and the API share it; a fresh one when absent. */
    over?: { storage: Storage; database: DatabaseConfig };
    /** No PORTAL_PUBLIC_URL: the origin comes from the address listened on (http://localhost:<port>), as with a default `npm start`. */
    derivedOrigin?: boolean;
  } = {},
): Promise<TestPortal> {
  const { storage, config: database } = over === undefined ? await backend.freshDatabase(t) : { storage: over.storage, config: over.database };
  const config = testConfig({ ...(derivedOrigin ? { PORTAL_PORT: '0' } : { PORTAL_PUBLIC_URL: TEST_PORTAL_ORIGIN }), RATE_LIMIT_REQUESTS: '0', ...env });
  const clock = manualClock(new Date());
  const { logger, logs } = capturingLogger();
  const registry = createMetricsRegistry({ clusterWorker: false });
  const build = async (over: Storage, metricsIn = createMetricsRegistry({ clusterWorker: false })): Promise<{ app: FastifyInstance; services: Services }> => {
    const services = testServices(over, { config, clock });
    const app = await buildPortalApp({
      logger,
      services,
      config,
      storeAddress,
      rateLimiter: createRateLimiter(config.limits.rateLimit),
      httpMetrics: createHttpMetrics(metricsIn),
      signInMetrics: createSignInMetrics(metricsIn),
      clock,
      outages: testOutages(logger, over),
      tracing: null,
    });
    t.after(() => app.close());
    return { app, services };
  };
  const { app, services } = await build(storage, registry);
  const origin = () => portalOrigin(config.portal, config.host, app.server);
  return {
    app,
    services,
    storage,
    database,
    config,
    clock,
    logs,
    registry,
    client: () => new PortalClient(app, origin()),
    async anotherProcess() {
      const other = openStorage(database);
      t.after(() => other.close());
      return (await build(other)).app;
    },
  };
}

/** How a form post treats the CSRF defences: as a browser on the portal (`browser`), or forged. */
export interface PostOptions {
  /** The Origin header; the portal's own unless given; `null` leaves it out. */
  origin?: string | null;
  /** The `_csrf` field: the one from the last page fetched unless given; `null` leaves it out. */
  csrf?: string | null;
}

/** A cookie-keeping client over `app.inject`: what one browser would send. */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last HTML page this client received. */
  csrfToken: string | undefined;

  constructor(
    private app: FastifyInstance,
    readonly origin: string,
  ) {}

  /** From now on, this client's requests go to `app` (another process of the same portal), with the same cookies. */
  withApp(app: FastifyInstance): this {
    this.app = app;
    return this;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(await this.app.inject({ method: 'GET', url, headers: { ...this.cookieHeader(), ...headers } }));
  }

  /** Posts a form, first fetching `formPage` (for its CSRF token) when given. */
  async post(url: string, fields: Record<string, string | readonly string[]>, { origin, csrf }: PostOptions = {}, formPage?: string): Promise<LightMyRequestResponse> {
    if (formPage !== undefined) await this.get(formPage);
    const token = csrf === undefined ? this.csrfToken : csrf;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() };
    const sentOrigin = origin === undefined ? this.origin : origin;
    if (sentOrigin !== null) headers.origin = sentOrigin;
    const form = new URLSearchParams(token === null || token === undefined ? {} : { _csrf: token });
    // A field given as a list is repeated, as a browser sends checked checkboxes of one name.
    for (const [name, value] of Object.entries(fields)) for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
    const payload = form.toString();
    return this.keep(await this.app.inject({ method: 'POST', url, headers, payload }));
  }

  /** The session cookie's value (so_session or __Host-so_session), if any. */
  sessionCookie(): string | undefined {
    return this.cookies.get('so_session') ?? this.cookies.get('__Host-so_session');
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired = cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now());
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]*)"/.exec(response.body)?.[1];
    if (token !== undefined && token !== '') this.csrfToken = token;
    return response;
  }
}

/** The Argon2id hash of each password the helpers sign up with, made once per process: hashing is a sign-up's slow part. */
const passwordHashes = new Map<string, Promise<string>>();

/**
 * A sign-up as the form leaves it for an address nobody has: pending, its
 * password hashed, its mail (with the link to `origin`) queued, written by
 * the same storage call the sign-up service makes; the token of its link.
 * For tests about what comes after the form (the form itself is tested in
 * portal-sign-in.test.ts and sign-up-pages.test.ts), so they skip its
 * Argon2 hash and its minimum time.
 */
export async function pendingSignUp(
  portal: { storage: Storage; services: Services; clock: Clock },
  { email, password = TEST_PASSWORD, storeName = 'Main Street Pets', origin }: { email: string; password?: string; storeName?: string; origin: string },
): Promise<string> {
  const token = newSecretToken();
  const now = portal.clock.now();
  const expiresAt = new Date(now.getTime() + SIGN_UP_VALID_MS).toISOString();
  const to = normaliseEmail(email);
  const mail = await portal.services.mail.prepare(signUpConfirmationMail({ to, link: portalLink(origin, '/sign-up/confirm', { token }), expiresAt }));
  let passwordHash = passwordHashes.get(password);
  if (passwordHash === undefined) passwordHashes.set(password, (passwordHash = hashPassword(password)));
  await portal.storage.signUps.start({ tokenHash: tokenHash(token), email: to, passwordHash: await passwordHash, storeName: storeName.trim(), createdAt: now.toISOString(), expiresAt }, mail);
  return token;
}

/**
 * A new user and their store as following a sign-up's link makes them: a
 * pending sign-up (pendingSignUp) completed by the sign-up service, as the
 * `/sign-up/confirm` page does, the owner's address verified. For service
 * and storage tests, which have no portal; `clock` must be the services'.
 */
export async function signedUpOwner(
  h: { storage: Storage; services: Services; clock: Clock },
  { email = `owner-${Math.random().toString(36).slice(2)}@example.com`, password = TEST_PASSWORD, storeName = 'Main Street Pets' } = {},
): Promise<User> {
  const token = await pendingSignUp(h, { email, password, storeName, origin: TEST_PORTAL_ORIGIN });
  const completed = await h.services.signUp.complete({ token, password });
  if (!completed.ok) throw new Error(`sign-up failed: ${completed.reason}`);
  return completed.user;
}

/**
 * A new user and their store, signed in: a pending sign-up (pendingSignUp)
 * finished through its link's page, as the person who opens the mail does
 * (`response`: the answer that signed them in). The owner's address is
 * verified, since following the link proved it; `verified: false` makes
 * them instead the owner a fresh store's operator invitation brings in
 * through the sign-up form (the one way an owner's address is still
 * unverified: a verification mail is queued).
 */
export async function signUp(
  portal: Pick<TestPortal, 'client' | 'storage' | 'services' | 'clock'>,
  { email = `owner-${Math.random().toString(36).slice(2)}@example.com`, password = TEST_PASSWORD, storeName = 'Main Street Pets', verified = true } = {},
): Promise<{ client: PortalClient; email: string; password: string; response: LightMyRequestResponse }> {
  const client = portal.client();
  let response: LightMyRequestResponse;
  if (verified) {
    const token = await pendingSignUp(portal, { email, password, storeName, origin: client.origin });
    response = await client.post('/sign-up/confirm', { token, password }, {}, `/sign-up/confirm?token=${token}`);
  } else {
    const account = await portal.services.accounts.createAccount({ name: storeName });
    const { token } = await portal.services.team.inviteByOperator(account.id, 'owner');
    response = await client.post('/sign-up', { email, password, invite: token }, {}, `/sign-up?invite=${token}`);
  }
  if (response.statusCode !== 303) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  return { client, email, password, response };
}

/** The script and the style sheet a portal page links (their content-hashed /assets/ paths); throws when either is missing. */
export function assetLinks(html: string): { script: string; style: string } {
  const style = /<link rel="stylesheet" href="(\/assets\/[^"]+)">/.exec(html)?.[1];
  const script = /<script src="(\/assets\/[^"]+)" defer><\/script>/.exec(html)?.[1];
  if (style === undefined || script === undefined) throw new Error('the page does not link its script and style sheet');
  return { script, style };
}

/** The visible text of an HTML page's element content, tags removed and entities of the templates decoded: for message assertions. */
/** The account of the user signed up with `email`. */
export async function accountOf(portal: TestPortal, email: string): Promise<number> {
  const user = await portal.storage.users.findByEmail(email);
  if (user === undefined) throw new Error(`no user ${email}`);
  return user.accountId;
}

/** The order ids an /orders page lists, in its order (each a link to the order's page). */
export const orderIds = (html: string): string[] => [...html.matchAll(/<td data-label="Order"><a href="\/orders\/(\d+)"[^>]*>\1<\/a><\/td>/g)].map((match) => match[1] ?? '');

export function pageText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The store host over a test portal's services and storage (what its keys are used on), closed when the test ends. */
export async function portalStoreApp(t: Pick<TestContext, 'after'>, portal: TestPortal): Promise<FastifyInstance> {
  const app = await buildTestStoreApp({ logger: capturingLogger().logger, services: portal.services, storage: portal.storage });
  t.after(() => app.close());
  return app;
}

/** GET /v1/store/orders with `key`. */
export const listOrdersWith = (app: FastifyInstance, key: string) => app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${key}` } });
