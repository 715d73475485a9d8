import { describeRequestFailure } from '../../delivery/delivery-error.js';
import { anyAddressPolicy, createOutboundClient } from '../../delivery/outbound-http.js';
import { systemResolver } from '../../delivery/url-policy.js';
import { EVENT_TYPES } from '../../events/event-types.js';
import { webhookRequestHeaders } from '../../webhooks/delivery/webhook-sender.js';
import type { Printer } from '../cli-output.js';
import { FeedUnavailable, type EventsFeedClient, type FeedEvent, type FeedFilter, type FeedPage } from './events-feed-client.js';

/**
 * How often the feed is read once caught up. The feed has no long poll; every
 * 2 s is 30 requests a minute, under the default rate limit of 100 a minute
 * per key (RATE_LIMIT_REQUESTS), leaving the rest to the developer's own app.
 */
export const POLL_INTERVAL_MS = 2000;

/**
 * A default run starts this long before the server's clock says it is: its
 * Date header has whole seconds. What committed before the start is skipped
 * (the feed is walked to its end first), so only events after it are forwarded.
 */
const START_MARGIN_MS = 1000;

/** Where a run starts: now (only what commits from here on), or a replay of what was created since an instant or a duration ago. */
export type ListenStart = { readonly from: 'now' } | { readonly from: 'instant'; readonly at: string } | { readonly from: 'ago'; readonly ms: number };

export interface ListenRun {
  readonly feed: EventsFeedClient;
  readonly filter: Pick<FeedFilter, 'types'>;
  readonly start: ListenStart;
  readonly forwardTo: URL;
  readonly secret: string;
  /** Each forward's deadline: connecting, sending and reading the answer (WEBHOOK_TIMEOUT_MS, as a real delivery). */
  readonly timeoutMs: number;
  /** Prints "Ready" once caught up, with the run's facts for --json. */
  readonly onReady: (facts: { createdFrom: string }) => void;
  readonly print: Printer;
  readonly stderr: NodeJS.WritableStream;
  /** Ctrl-C: ends the run cleanly. */
  readonly signal: AbortSignal;
}

const TYPE_WIDTH = Math.max(...EVENT_TYPES.map((type) => type.length));

/** Waits `ms`, or less if `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The local development loop: follows the account's events feed and POSTs
 * each event, in feed order, to `forwardTo`, signed with `secret` exactly as
 * a webhook delivery is (the same body, the same headers), and prints one
 * line per event. Each event is forwarded once: a failing receiver is
 * reported, not retried, and never stops the loop. A server that stops
 * answering is asked again every POLL_INTERVAL_MS (said once on stderr, and
 * again when it is back); a refusal (a revoked key) ends the run. Resolves
 * when `signal` aborts.
 */
export async function runListenLoop(run: ListenRun): Promise<void> {
  const { feed, signal } = run;
  const serverNow = await feed.serverNow(signal);
  const createdFrom =
    run.start.from === 'instant' ? run.start.at : new Date(serverNow.getTime() - (run.start.from === 'ago' ? run.start.ms : START_MARGIN_MS)).toISOString();
  const filter: FeedFilter = { types: run.filter.types, createdFrom };
  const pages = pageReader(run, filter);
  let cursor: string | undefined;
  // From now: what committed before the start is skipped by walking the feed to its end.
  while (run.start.from === 'now') {
    const page = await pages.next(cursor);
    if (page === undefined) return;
    cursor = page.nextCursor;
    if (page.caughtUp) break;
  }
  if (signal.aborted) return;
  run.onReady({ createdFrom });
  // The developer's own receiver: any address (their machine), resolved once by the one outbound client.
  const client = createOutboundClient({ timeoutMs: run.timeoutMs, policy: anyAddressPolicy(systemResolver) });
  try {
    while (!signal.aborted) {
      const page = await pages.next(cursor);
      if (page === undefined) return;
      for (const event of page.events) {
        if (!(await forward(run, client, event))) return;
      }
      cursor = page.nextCursor;
      if (page.caughtUp) await pause(POLL_INTERVAL_MS, signal);
    }
  } finally {
    client.close();
  }
}

/** The feed's pages, each asked for until the server answers; undefined once `signal` aborts. */
function pageReader({ feed, signal, stderr }: ListenRun, filter: FeedFilter) {
  let lost = false;
  return {
    async next(cursor: string | undefined): Promise<FeedPage | undefined> {
      while (!signal.aborted) {
        try {
          const page = await feed.page(filter, cursor, signal);
          if (lost) stderr.write(`store-orders: the server at ${feed.where} answers again.\n`);
          lost = false;
          return page;
        } catch (error) {
          if (signal.aborted) return undefined;
          if (!(error instanceof FeedUnavailable)) throw error;
          if (!lost) stderr.write(`store-orders: ${error.message}; asking again every ${POLL_INTERVAL_MS / 1000} s.\n`);
          lost = true;
          await pause(Math.max(error.retryAfterMs ?? 0, POLL_INTERVAL_MS), signal);
        }
      }
      return undefined;
    },
  };
}

/** POSTs one event and prints its line; false when Ctrl-C interrupted it (nothing printed). */
async function forward(run: ListenRun, client: ReturnType<typeof createOutboundClient>, event: FeedEvent): Promise<boolean> {
  const at = new Date();
  const started = performance.now();
  const headers = webhookRequestHeaders(event.id, event.payload, [run.secret], at);
  let outcome: { status: number } | { error: string };
  try {
    const answer = await client.post(run.forwardTo.href, { headers, body: Buffer.from(event.payload, 'utf8') }, run.signal);
    outcome = { status: answer.statusCode };
  } catch (error) {
    if (run.signal.aborted) return false;
    outcome = { error: describeRequestFailure(error, run.signal, 'local receiver') };
  }
  const durationMs = Math.round(performance.now() - started);
  const time = `${at.toISOString().slice(0, 19)}Z`;
  const result = 'status' in outcome ? String(outcome.status) : `failed: ${outcome.error}`;
  run.print.result(
    { time: at.toISOString(), type: event.type, eventId: event.id, ...outcome, durationMs },
    `${time}  ${event.type.padEnd(TYPE_WIDTH)}  ${event.id}  -> ${result}  (${durationMs} ms)`,
  );
  return true;
}
