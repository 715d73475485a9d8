import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS } from './postgres-pool.js';
import { DELIVERIES_CHANNEL } from './postgres-events.js';

/** How long the check that LISTEN works waits for its own notification. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * LISTENs for the notification a commit that queues webhook deliveries
 * sends (postgres-events.ts), on a connection of its own, and calls
 * `listener` for each. It first checks that notifications arrive at all: a
 * NOTIFY sent through the pool must come back on this connection within 2 s.
 * Behind a transaction-mode pooler (PgBouncer) LISTEN cannot work (the
 * pooler hands the server connection to someone else after the statement),
 * and then it says so and closes: the engine's poll finds other processes'
 * deliveries. A lost connection is opened again after a poll's worth of
 * waiting; nothing is lost meanwhile, because the poll goes on.
 */
export async function listenForDeliveries(
  url: string,
  notify: (text: string) => Promise<unknown>,
  listener: () => void,
): Promise<{ watching: boolean; how: string; close(): Promise<void> }> {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const probe = `probe ${randomUUID()}`;
  let probed: (() => void) | undefined;

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'store-orders listen', keepAlive: true });
    next.on('notification', (message) => {
      if (message.payload === probe) probed?.();
      else listener();
    });
    next.on('error', () => reconnectLater(next));
    next.on('end', () => reconnectLater(next));
    await next.connect();
    await next.query(`LISTEN ${DELIVERIES_CHANNEL}`);
    return next;
  }

  /** The listening connection failed or ended: drop it and connect again (errors of any other connection are not ours). */
  function reconnectLater(lost: pg.Client): void {
    if (closed || client !== lost) return;
    client = undefined;
    lost.end().catch(() => undefined);
    scheduleReconnect();
  }

  /** Tries again in a second, and again after every failure, until connected or closed. */
  function scheduleReconnect(): void {
    if (closed) return;
    retry = setTimeout(() => {
      connect()
        .then((next) => {
          if (closed) return next.end();
          client = next;
          // Whatever was queued while the connection was down: the engine looks now.
          listener();
          return undefined;
        })
        .catch(scheduleReconnect);
    }, 1000);
    retry.unref();
  }

  const close = async () => {
    closed = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };

  try {
    client = await connect();
    const arrived = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      probed = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    await notify(`NOTIFY ${DELIVERIES_CHANNEL}, '${probe}'`);
    if (await arrived) return { watching: true, how: `LISTEN ${DELIVERIES_CHANNEL} on a connection of its own`, close };
    await close();
    return { watching: false, how: 'notifications sent through DATABASE_URL do not come back on a LISTEN connection (a transaction-mode pooler such as PgBouncer?)', close };
  } catch (error) {
    await close();
    return { watching: false, how: `could not LISTEN (${error instanceof Error ? error.message : String(error)})`, close };
  }
}
