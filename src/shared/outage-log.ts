
/** What ran into the unreachable database: a request (answered 503) or background work (background-work.ts). */
export type OutageSource = 'request' | 'messages-dispatcher' | 'webhooks-dispatcher' | 'mail-dispatcher' | 'request-logs' | 'key-usage' | 'pruning';

/**
 * The log of expected failures: the database unreachable and clients that
 * leave before their answer. During an outage every request fails the same
 * way, so a line per failure (with its stack) says nothing new and buries
 * everything else: this writes one line when the database goes away, one
 * when it is back, and in between a summary per interval counting what was
 * refused. The `/readyz` state and the `store_database_up` gauge say the rest.
 */
export interface OutageLog {
  /** Something found the database unreachable (a DatabaseUnavailableError). */
  databaseUnreachable(error: unknown, source: OutageSource): void;
  /** Something found the database answering (the readiness check). */
  databaseReachable(): void;
  /** A client left before its response was written (ECONNRESET, EPIPE, a premature close). */
  clientGone(): void;
  /** Stops the timers (at shutdown), writing what is still counted. */
  stop(): void;
}

/** The lines it writes: pino's (or Fastify's) logger. */
export interface OutageLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface OutageLogOptions {
  logger: OutageLogger;
  /** Resolves when the database answers; tried while it is down, to notice its return without waiting for traffic. */
  probe: () => Promise<unknown>;
  /** Told each change of state (up: true) for the gauge. */
  onChange: (up: boolean) => void;
  /** How often a summary is written while failures are counted; also the least time between two "unreachable" lines. */
  summaryIntervalMs: number;
  /** How often the probe runs while the database is down. */
  probeIntervalMs: number;
  now?: () => number;
}

/** Error codes that mean the client went away; nothing on our side failed. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Whether `error` only says the client left before its response was complete. */
export function isClientGone(error: unknown): boolean {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && CLIENT_GONE_CODES.has(error.code);
}

/** Why the database is unreachable, in a line: the driver's message (never a URL or password), without a stack. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  if (cause instanceof AggregateError && cause.errors[0] instanceof Error) return cause.errors[0].message;
  return cause.message;
}

const count = (n: number): string => n.toLocaleString('en-US');

export function createOutageLog({ logger, probe, onChange, summaryIntervalMs, probeIntervalMs, now = Date.now }: OutageLogOptions): OutageLog {
  const seconds = Math.round(summaryIntervalMs / 1000);
  let up = true;
  let downSince = 0;
  /** Whether the current outage's "unreachable" line was written (at most one per interval, should the state flap). */
  let downLogged = false;
  let lastDownLine = Number.NEGATIVE_INFINITY;
  let failures = new Map<OutageSource, number>();
  let clientsGone = 0;
  let summaryTimer: NodeJS.Timeout | undefined;
  let probeTimer: NodeJS.Timeout | undefined;

  function counted(): Record<string, number> {
    return Object.fromEntries(failures);
  }

  function describe(): string {
    const requests = failures.get('request') ?? 0;
    const other = [...failures.values()].reduce((sum, n) => sum + n, 0) - requests;
    const parts = [`${count(requests)} requests refused`];
    if (other > 0) parts.push(`${count(other)} other operations failed`);
    return parts.join(', ');
  }

  function summarize(): void {
    if (failures.size > 0) logger.warn({ failures: counted(), intervalSeconds: seconds, databaseUp: up }, `database unreachable: ${describe()} in the last ${seconds} s`);
    if (clientsGone > 0) logger.info({ clientsGone, intervalSeconds: seconds }, `${count(clientsGone)} clients went away before their responses in the last ${seconds} s`);
    const idle = failures.size === 0 && clientsGone === 0 && up;
    failures = new Map();
    clientsGone = 0;
    if (idle && summaryTimer !== undefined) {
      clearInterval(summaryTimer);
      summaryTimer = undefined;
    }
  }

  function ensureSummaries(): void {
    if (summaryTimer !== undefined) return;
    summaryTimer = setInterval(summarize, summaryIntervalMs);
    summaryTimer.unref();
  }

  function markUp(): void {
    if (up) return;
    up = true;
    onChange(true);
    if (probeTimer !== undefined) clearTimeout(probeTimer);
    probeTimer = undefined;
    if (downLogged) {
      const downSeconds = Math.round((now() - downSince) / 1000);
      logger.info({ downSeconds, failures: counted() }, `database reachable again after ${downSeconds} s (${describe()} since the last line)`);
      failures = new Map();
    }
  }

  function scheduleProbe(): void {
    probeTimer = setTimeout(() => {
      probe().then(markUp, () => {
        if (!up) scheduleProbe();
      });
    }, probeIntervalMs);
    probeTimer.unref();
  }

  return {
    databaseUnreachable(error, source) {
      failures.set(source, (failures.get(source) ?? 0) + 1);
      ensureSummaries();
      if (!up) return;
      up = false;
      downSince = now();
      onChange(false);
      downLogged = downSince - lastDownLine >= summaryIntervalMs;
      if (downLogged) {
        lastDownLine = downSince;
        logger.error({ reason: reasonOf(error), source }, `database unreachable: ${reasonOf(error)}; requests get 503 until it answers again`);
      }
      scheduleProbe();
    },
    databaseReachable: markUp,
    clientGone() {
      clientsGone++;
      ensureSummaries();
    },
    stop() {
      if (probeTimer !== undefined) clearTimeout(probeTimer);
      if (summaryTimer !== undefined) clearInterval(summaryTimer);
      probeTimer = undefined;
      summaryTimer = undefined;
      if (failures.size > 0 || clientsGone > 0) summarize();
    },
  };
}
