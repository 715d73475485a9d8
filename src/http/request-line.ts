import type { IncomingMessage } from 'node:http';
import { pino, type Logger } from 'pino';
import { textMemo } from '../shared/text-memo.js';

type LoggedRequest = Pick<IncomingMessage, 'method' | 'url' | 'socket'>;

/** Writes a request's one log line ("request completed"): its request id, request, status and duration. */
export type RequestLineWriter = (requestId: string, req: LoggedRequest, statusCode: number, responseTime: number) => void;

const INFO = 30;
/** pino's own symbols (`pino.symbols`, exported for libraries): where a logger keeps its stream, bindings and format. */
const symbols = pino.symbols as unknown as Record<string, symbol>;
const symbol = (name: string): symbol => {
  const found = symbols[name];
  if (found === undefined) throw new Error(`pino.symbols has no ${name}: request-line.ts needs updating for this pino`);
  return found;
};
const STREAM = symbol('streamSym');
const CHINDINGS = symbol('chindingsSym');
const LEVEL_PREFIXES = symbol('lsCacheSym');
const TIME = symbol('timeSym');
const MIXIN = symbol('mixinSym');
const END = symbol('endSym');
const NESTED_KEY = symbol('nestedKeySym');
const MESSAGE_PREFIX = symbol('msgPrefixSym');
const MESSAGE_KEY = symbol('messageKeySym');
const HOOKS = Symbol.for('pino.hooks');
const FORMATTERS = Symbol.for('pino.formatters');
const NEEDS_METADATA = Symbol.for('pino.metadata');

/**
 * The request line, serialized here rather than by pino's general path:
 * pino's `log.info({ req, res, responseTime }, …)` through a child logger
 * per request ran the serializers, the redaction (of headers this line never
 * holds), and a property walk for every request, 6.5 µs of a cached
 * listing's 52 (BENCHMARKS.md, thirteenth session). The line is the very one
 * pino writes, byte for byte, with the logger's own level prefix, time,
 * bindings, JSON text and line end, to its own stream (test/http/request-line.test.ts
 * compares the two). When the logger does anything this does not (a mixin,
 * such as the trace ids while tracing is on; hooks, formatters, a nested key,
 * message prefix or message key of its own; a stream that wants each line's metadata), the line goes
 * through pino itself.
 */
export function createRequestLineWriter(logger: Logger, loggableUrl: (url: string) => string): RequestLineWriter {
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[STREAM] as ({ write(line: string): unknown } & Record<symbol, unknown>) | undefined;
  const levels = internals[LEVEL_PREFIXES] as Record<number, string> | undefined;
  const bindings = internals[CHINDINGS];
  const time = internals[TIME];
  const end = internals[END];
  const prefix = levels?.[INFO];
  const simple =
    stream !== undefined &&
    typeof stream.write === 'function' &&
    stream[NEEDS_METADATA] !== true &&
    typeof prefix === 'string' &&
    typeof bindings === 'string' &&
    typeof time === 'function' &&
    typeof end === 'string' &&
    internals[MIXIN] === undefined &&
    (internals[HOOKS] as { logMethod?: unknown } | undefined)?.logMethod === undefined &&
    (internals[FORMATTERS] as { log?: unknown } | undefined)?.log === undefined &&
    (internals[NESTED_KEY] ?? null) === null &&
    (internals[MESSAGE_PREFIX] ?? '') === '' &&
    internals[MESSAGE_KEY] === 'msg';
  if (!simple) {
    return (requestId, req, statusCode, responseTime) => {
      logger.info({ requestId, req, res: { statusCode }, responseTime }, 'request completed');
    };
  }
  const now = time as () => string;
  const stringify = (value: string) => JSON.stringify(value);
  /** The URL's loggable form as JSON text, remembered. */
  const urlText = textMemo((url) => stringify(loggableUrl(url)));
  return (requestId, req, statusCode, responseTime) => {
    if (logger.levelVal > INFO) return;
    const method = req.method === undefined ? '' : `"method":${stringify(req.method)},`;
    const remoteAddress = req.socket?.remoteAddress;
    const address = remoteAddress === undefined ? '' : `,"remoteAddress":${stringify(remoteAddress)}`;
    const took = Number.isFinite(responseTime) ? String(responseTime) : 'null';
    stream.write(
      `${prefix}${now()}${bindings},"requestId":${stringify(requestId)},"req":{${method}"url":${urlText(req.url ?? '')}${address}},"res":{"statusCode":${statusCode}},"responseTime":${took},"msg":"request completed"${end}`,
    );
  };
}
