import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import { looksLikeApiKey, redactApiKeys } from '../api-keys/api-key-format.js';
import type { LogLevel } from '../config/config.js';
import { isClientGone, type OutageLog } from '../shared/outage-log.js';
import { activeTraceIds } from '../shared/tracing.js';
import { createRequestLineWriter, type RequestLineWriter } from './request-line.js';

/**
 * A request URL fit for a log line: query values are replaced (a caller may
 * put a key or personal data there) and anything shaped like an API key is
 * scrubbed from the path.
 */
function loggableUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  // A key may arrive percent-encoded (so%5Fprod%5F…): judge the decoded form.
  const decoded = safeDecode(rawPath);
  const path = looksLikeApiKey(decoded) ? decoded : rawPath;
  const query =
    queryStart === -1
      ? ''
      : '?' +
        url
          .slice(queryStart + 1)
          .split('&')
          .map((pair) => `${pair.split('=')[0] ?? ''}=[redacted]`)
          .join('&');
  return redactApiKeys(path + query);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Log lines for a person at a terminal: pino-pretty, colored, one line per
 * entry with its time, level and message, the fields below it. Loaded only
 * when asked for (createRequire: synchronously, and never in a process whose
 * stdout is a file or a pipe, which keeps pino's JSON).
 */
export function prettyDestination(): DestinationStream {
  const require = createRequire(import.meta.url);
  const build = require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return build({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/** Log lines are written once this many bytes are buffered (some 20 request lines), or every LOG_FLUSH_MS. */
const LOG_BUFFER_BYTES = 3584;
/** PIPE_BUF on Linux: one write(2) of at most this many bytes to a pipe is never mixed with another process's. */
const PIPE_BUF_BYTES = 4096;
/** The longest a line waits in the buffer: how far behind a log reader is, and what `kill -9` can lose. */
const LOG_FLUSH_MS = 250;

let bufferedStdout: DestinationStream | undefined;

/**
 * The serving process's stdout for JSON log lines (a file, a pipe, a log
 * shipper), buffered: one write(2) per 3.5 to 4 KB of lines (sonic-boom's
 * `minLength`, through pino.destination) rather than one per line, which
 * was some 1.5 µs of a cached listing's 45 (BENCHMARKS.md). Writes stay
 * synchronous; the buffer goes out every LOG_FLUSH_MS (an unref'd timer,
 * `periodicFlush`), and at exit (a normal one, a graceful stop, or
 * process.exit: an 'exit' handler flushes it synchronously). `kill -9`
 * loses the lines of at most the last 250 ms (docs/operations.md). One per
 * process.
 */
export function bufferedStdoutDestination(): DestinationStream {
  if (bufferedStdout !== undefined) return bufferedStdout;
  // maxWrite: each write(2) holds whole lines and at most PIPE_BUF bytes, so it is atomic on a pipe that --workers share.
  const destination = pino.destination({ dest: 1, sync: true, minLength: LOG_BUFFER_BYTES, maxWrite: PIPE_BUF_BYTES, periodicFlush: LOG_FLUSH_MS });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout closed (a reader gone): nothing more can be written.
    }
  });
  bufferedStdout = destination;
  return destination;
}

/**
 * The process logger: pino JSON to `destination` (stdout by default). Request lines carry the request id; the
 * Authorization header and cookies are redacted even if a serializer were
 * to include headers.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream, { traced = false }: { traced?: boolean } = {}): Logger {
  return pino(
    {
      level,
      // Only while tracing is on: every line then carries the active span's trace_id and span_id.
      ...(traced ? { mixin: activeTraceIds } : {}),
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
      serializers: {
        req: (req: IncomingMessage & { id?: string }) => ({
          method: req.method,
          url: loggableUrl(req.url ?? ''),
          remoteAddress: req.socket?.remoteAddress,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}

/**
 * A request's one log line, once its response is sent: method, path (its
 * query values redacted), client address, status, duration and the request
 * id (and the trace id while tracing is on). One line rather than Fastify's
 * two ("incoming request", then this): each line is a JSON serialization and
 * a write (BENCHMARKS.md). A request that never completes (the process
 * killed mid-request) leaves no line; the access it made is in its metrics
 * and, for store requests, the request logs. Written by request-line.ts, the
 * line pino would write, without pino's general path per request.
 */
export function requestLineWriter(logger: FastifyBaseLogger | Logger): RequestLineWriter {
  return createRequestLineWriter(logger as Logger, loggableUrl);
}

/**
 * Fastify's request log lines, written by requestLineWriter above, so that a
 * path in front of Fastify (http/fast-lane.ts) writes the very same line.
 * Errors are logged as Fastify logs them.
 */
export class RequestLogLines extends LogController {
  constructor(
    options: ConstructorParameters<typeof LogController>[0],
    private readonly outages: Pick<OutageLog, 'clientGone'>,
    private readonly writeLine: RequestLineWriter,
  ) {
    super(options);
  }

  /** No line when a request arrives: its one line is written when it completes. */
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) {
      // A client that hung up is expected, and counted, not logged with a stack per request.
      if (isClientGone(error)) this.outages.clientGone();
      else super.requestCompleted(error, request, reply);
      return;
    }
    if (this.isLogDisabled(request)) return;
    this.writeLine(request.id, request, reply.statusCode, reply.elapsedTime);
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (isClientGone(error)) this.outages.clientGone();
    else super.streamError(error, request, reply);
  }
}
