/**
 * `npm run screenshots`: renders the portal's pages into docs/portal/*.png,
 * at a laptop and a phone size. Starts the service (src/cli/main.ts serve)
 * on a fresh SQLite database in a temporary folder, signs up through the
 * browser (Debian's chromium, through playwright-core), the mailed link
 * read in the development mailbox, places a few orders
 * with the operator CLI, and photographs each page as a new user meets it.
 *
 * Names after `--` write only those pages, both sizes, and leave every other
 * PNG alone (`npm run screenshots -- account-delete team`); the journey is
 * walked whole either way, since each page shows what came before it. A
 * name no page has fails the run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../src/storage/sqlite/sqlite-driver.js';
import { Secret, TOTP } from 'otpauth';
import { chromium, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs', 'portal');
const CLI = ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts')];
const SIZES = [
  { name: 'laptop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** The pages named on the command line; empty: every page. */
const only = new Set(process.argv.slice(2));
/** Every page the journey met, photographed or not. */
const met = new Set<string>();
let written = 0;

function wanted(name: string): boolean {
  met.add(name);
  return only.size === 0 || only.has(name);
}

async function shoot(page: Page, name: string, size: string): Promise<void> {
  if (!wanted(name)) return;
  await page.screenshot({ path: join(OUT, `${name}-${size}.png`), fullPage: true });
  written += 1;
}

/** One part of a page (a section), for a feature the whole page would lose among the rest. */
async function shootPart(page: Page, selector: string, name: string, size: string): Promise<void> {
  if (!wanted(name)) return;
  await page.locator(selector).first().screenshot({ path: join(OUT, `${name}-${size}.png`) });
  written += 1;
}

const dir = mkdtempSync(join(tmpdir(), 'store-orders-screenshots-'));
const [storePort, portalPort] = [await freePort(), await freePort()];
const env = {
  ...process.env,
  DATABASE_URL: `sqlite:///${join(dir, 'store.db')}`,
  HOST: '127.0.0.1',
  PORT: String(storePort),
  PORTAL_PORT: String(portalPort),
  QUICKSTART_PORT: 'off',
  METRICS_PORT: 'off',
  LOG_LEVEL: 'warn',
  // The script loads pages and posts forms far faster than a person (over 100 a minute from one address, the default budget): no limit.
  RATE_LIMIT_REQUESTS: '0',
  // A webhook endpoint on loopback, as the tests add one (nothing listens there; the pages only show it).
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
};
const portal = `http://localhost:${portalPort}`;

/** Runs the operator's CLI on the service's database; its standard output. */
function cli(args: string[]): string {
  const run = spawnSync(process.execPath, [...CLI, ...args], { env, cwd: ROOT });
  if (run.status !== 0) throw new Error(`store-orders ${args.join(' ')} failed: ${run.stderr.toString()}`);
  return run.stdout.toString();
}

/** The first http(s) link in `text`. */
function linkIn(text: string): string {
  const link = /https?:\/\/\S+/.exec(text)?.[0];
  if (link === undefined) throw new Error(`no link in: ${text}`);
  return link;
}

/** The link like `path` in the newest mail of `kind` to `recipient`, read with `store-orders mail list|show`. */
function mailedLink(recipient: string, kind: string, path: RegExp): string {
  const { mail } = JSON.parse(cli(['mail', 'list', '--to', recipient, '--json'])) as { mail: { id: string; kind: string }[] };
  const found = mail.find((one) => one.kind === kind);
  if (found === undefined) throw new Error(`no ${kind} mail to ${recipient}`);
  const shown = cli(['mail', 'show', found.id]);
  const link = [...shown.matchAll(/https?:\/\/\S+/g)].map((match) => match[0]).find((one) => path.test(one));
  if (link === undefined) throw new Error(`the ${kind} mail has no link like ${String(path)}: ${shown}`);
  return link;
}

/** Moves the sign-in of every session of `email` `minutes` into the past (the database directly: the service's clock is the real one). */
function signedInMinutesAgo(email: string, minutes: number): void {
  const db = new Database(join(dir, 'store.db'));
  try {
    const at = new Date(Date.now() - minutes * 60_000).toISOString();
    const changed = db.prepare('UPDATE user_sessions SET authenticated_at = ? WHERE user_id = (SELECT id FROM users WHERE email = ?)').run(at, email).changes;
    if (changed === 0) throw new Error(`no session of ${email}`);
  } finally {
    db.close();
  }
}

const server = spawn(process.execPath, [...CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'], cwd: ROOT });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run'] });
try {
  await waitUntilUp(`${portal}/sign-in`, server);
  mkdirSync(OUT, { recursive: true });
  for (const [index, size] of SIZES.entries()) {
    const page = await (await browser.newContext({ viewport: size.viewport, deviceScaleFactor: 1 })).newPage();
    await page.goto(`${portal}/sign-up`);
    await shoot(page, 'sign-up', size.name);
    await page.getByLabel('Email').fill(`owner${index}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByLabel('Store name').fill('Main Street Pets');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email to continue' }).waitFor();
    await shoot(page, 'sign-up-sent', size.name);
    // No SMTP_URL: the mail waits in the development mailbox, which this browser may read before it can sign in.
    await page.getByRole('link', { name: 'Development mailbox' }).click();
    await shoot(page, 'sign-up-mail', size.name);
    await page.getByRole('link', { name: /\/sign-up\/confirm\?token=/ }).click();
    await shoot(page, 'sign-up-confirm', size.name);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${portal}/`);
    const accountId = (await page.locator('dd code').first().textContent()) ?? '';
    const orders: [string, string, string][] = [
      ['7', '1', '2026-12-01T10:00:00Z'],
      ['12', '2', '2026-12-03T15:30:00Z'],
      ['31', '1', '2026-12-08T09:00:00Z'],
    ];
    const orderIds: string[] = [];
    for (const [petId, quantity, shipDate] of orders) {
      const placed = JSON.parse(cli(['orders', 'create', '--account', accountId, '--pet-id', petId, '--quantity', quantity, '--ship-date', shipDate, '--json'])) as { id: string };
      orderIds.push(placed.id);
    }
    // A few requests of the store's code (listings, an unknown order, a cancel), so that the account page's usage charts have something to show.
    const created = JSON.parse(cli(['keys', 'create', '--account', accountId, '--name', 'Checkout service', '--json'])) as { key: string };
    const api = `http://127.0.0.1:${storePort}`;
    const call = async (path: string, method: string, status: number) => {
      const answer = await fetch(`${api}${path}`, { method, headers: { authorization: `Bearer ${created.key}` } });
      await answer.arrayBuffer();
      if (answer.status !== status) throw new Error(`${method} ${path} answered ${answer.status}, not ${status}`);
    };
    for (let times = 0; times < 24; times++) await call('/v1/store/orders', 'GET', 200);
    for (let times = 0; times < 3; times++) await call('/v1/store/orders/999999', 'DELETE', 404);
    await call(`/v1/store/orders/${orderIds[1] ?? ''}`, 'DELETE', 204);
    // Request logs are written in batches, at most a second after the request.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await page.reload();
    await shoot(page, 'account', size.name);
    // A teammate who joins with the operator's link has an address nobody verified yet: every page shows them the banner with Resend.
    const inviteLink = linkIn(cli(['users', 'invite', '--account', accountId, '--role', 'developer']));
    const joining = await browser.newContext({ viewport: size.viewport, deviceScaleFactor: 1 });
    const joiner = await joining.newPage();
    await joiner.goto(inviteLink);
    await joiner.getByLabel('Email').fill(`joiner${index}@example.com`);
    await joiner.getByLabel('Password').fill('correct horse battery staple');
    await joiner.getByRole('button', { name: 'Create account' }).click();
    await joiner.waitForURL(`${portal}/`);
    await shootPart(joiner, 'section[aria-labelledby="verify-email-heading"]', 'verify-email-banner', size.name);
    // The verification link of the mail the teammate's sign-up queued (read with the operator's CLI: it waits in the outbox).
    await joiner.goto(mailedLink(`joiner${index}@example.com`, 'email-verification', /\/verify-email\?token=/));
    await joiner.getByRole('heading', { name: 'Email address' }).waitFor();
    await shoot(joiner, 'verify-email', size.name);
    // A second store invites the teammate, who opens the operator's link signed in: the page that joins another store.
    const second = cli(['accounts', 'create', '--name', 'Harbour Aquatics', '--json']);
    const secondId = (JSON.parse(second) as { id: string }).id;
    await joiner.goto(linkIn(cli(['users', 'invite', '--account', secondId, '--role', 'viewer'])));
    await joiner.getByRole('button', { name: 'Accept the invitation' }).waitFor();
    await shoot(joiner, 'invitation', size.name);
    await joining.close();
    await page.goto(`${portal}/keys`);
    await page.getByLabel('Key name').fill('Till in the shop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('New API key', { exact: true }).waitFor();
    await shoot(page, 'keys', size.name);
    await page.goto(`${portal}/orders`);
    await shoot(page, 'orders', size.name);
    await page.goto(`${portal}/audit`);
    await shoot(page, 'audit', size.name);
    await page.goto(`${portal}/webhooks`);
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/store-orders/hooks');
    await page.getByLabel('Description').fill('Fulfilment');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Signing secret').waitFor();
    await page.goto(`${portal}/webhooks`);
    await shoot(page, 'webhooks', size.name);
    await page.getByRole('link', { name: /^Deliveries to / }).click();
    await page.getByRole('button', { name: 'Send test event' }).waitFor();
    await shoot(page, 'webhook-endpoint', size.name);
    await page.goto(`${portal}/team`);
    await page.getByRole('link', { name: `Remove joiner${index}@example.com` }).click();
    await shoot(page, 'team-remove', size.name);
    await page.goto(`${portal}/team`);
    await page.getByRole('textbox', { name: 'Email' }).fill(`teammate${index}@example.com`);
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('The invitation is on its way').waitFor();
    await shoot(page, 'team', size.name);
    // The danger zone's page (photographed, never posted: the store is used below).
    await page.goto(`${portal}/account/delete`);
    await shoot(page, 'account-delete', size.name);
    // A second browser of the same user, so that Settings lists two sessions.
    const elsewhere = await browser.newContext({ viewport: size.viewport, deviceScaleFactor: 1, userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1' });
    const other = await elsewhere.newPage();
    await other.goto(`${portal}/sign-in`);
    await other.getByLabel('Email').fill(`owner${index}@example.com`);
    await other.getByLabel('Password').fill('correct horse battery staple');
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    await other.waitForURL(`${portal}/`);
    await elsewhere.close();
    await page.goto(`${portal}/settings`);
    await shoot(page, 'settings', size.name);
    await shootPart(page, 'section[aria-labelledby="sessions-heading"]', 'sessions', size.name);
    // The same session as if its sign-in were 11 minutes old: a sensitive action (Sign out everywhere else) asks to confirm first.
    signedInMinutesAgo(`owner${index}@example.com`, 11);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await shoot(page, 'confirm-identity', size.name);
    // Confirmed with the password (the other session ends), then two-step sign-in set up with the key the page shows, as an app reads it.
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Confirm and continue' }).click();
    await page.waitForURL(/\/settings\?sessions=others/);
    await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
    await page.getByLabel('Code from the app').waitFor();
    await shoot(page, 'two-step-set-up', size.name);
    const appKey = ((await page.locator('#two-step-key').textContent()) ?? '').replace(/\s+/g, '');
    await page.getByLabel('Code from the app').fill(new TOTP({ secret: Secret.fromBase32(appKey) }).generate());
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await shoot(page, 'two-step-codes', size.name);
    await page.goto(`${portal}/dev/mailbox`);
    await shoot(page, 'dev-mailbox', size.name);
    // A page that does not exist: the error page every refusal uses (404 here).
    await page.goto(`${portal}/orders/not-an-order/anything`);
    await shoot(page, 'not-found', size.name);
    await page.goto(`${portal}/dev/mailbox`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${portal}/sign-in?signed-out=1`);
    await shoot(page, 'sign-in', size.name);
    // With two-step sign-in on, the password leads to the code page.
    await page.getByLabel('Email').fill(`owner${index}@example.com`);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${portal}/sign-in/two-step`);
    await shoot(page, 'two-step', size.name);
    await page.getByRole('link', { name: 'Start again' }).click();
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(`${portal}/forgot-password`);
    await shoot(page, 'forgot-password', size.name);
    await page.getByLabel('Email').fill(`owner${index}@example.com`);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('If an account uses that address').waitFor();
    await shoot(page, 'forgot-password-sent', size.name);
    // The link the mail carries, as the operator's CLI prints one (the mail itself waits in the outbox).
    await page.goto(linkIn(cli(['users', 'reset-password', `owner${index}@example.com`])));
    await shoot(page, 'reset-password', size.name);
  }
  const unknown = [...only].filter((name) => !met.has(name));
  if (unknown.length > 0) throw new Error(`no page is named ${unknown.join(', ')}`);
  process.stdout.write(`wrote ${written} screenshots to docs/portal/\n`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
