import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createUrlPolicy, type Resolver, type UrlPolicy } from './url-policy.js';

/** The most of a receiver's answer that is read; the rest is discarded with its connection. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;

/** Where one attempt goes: the URL, and the address the policy checked (connected to as is: no second resolution, no DNS rebinding). */
interface OutboundTarget {
  url: URL;
  address: { address: string; family: number };
}

/**
 * The policy for URLs an operator configured (the quickstart's message
 * webhook) or a developer forwards to on their own machine (`listen`):
 * any scheme of http(s), any address, but still resolved once inside the
 * attempt's deadline and connected to as resolved, like every other.
 */
export function anyAddressPolicy(resolve: Resolver): UrlPolicy {
  return createUrlPolicy({ allowHttp: true, allowedNetworks: ['0.0.0.0/0', '::/0'] }, resolve);
}

/** What the receiver answered: its status, headers and at most RESPONSE_BODY_LIMIT bytes of its body. */
export interface OutboundAnswer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body went on past RESPONSE_BODY_LIMIT (the rest was not read). */
  truncated: boolean;
}

/** The attempt's deadline passed (named as AbortSignal.timeout's error is, which describeRequestFailure words). */
class OutboundTimeoutError extends Error {
  override name = 'TimeoutError';
}

function pinnedLookup(address: { address: string; family: number }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
}

/** `work`, or the deadline's reason as soon as it is aborted (the work itself may go on, unawaited). */
function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  if (deadline.aborted) return Promise.reject(deadline.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(deadline.reason as Error);
    deadline.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => {
        deadline.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        deadline.removeEventListener('abort', stop);
        reject(error as Error);
      },
    );
  });
}

/**
 * The one way requests leave the process for a receiver (webhook endpoints,
 * the quickstart's message webhook). Every attempt has one deadline,
 * `timeoutMs`, covering all of it: checking the URL (the client's address
 * policy and its DNS lookup), connecting, sending, and reading the answer,
 * of which at most RESPONSE_BODY_LIMIT bytes are read. A receiver that never
 * answers, trickles its body, never ends it or sends a huge one costs one
 * attempt of at most `timeoutMs`, never more. One timer per attempt, cleared
 * when it settles: AbortSignal.timeout inside AbortSignal.any could be
 * collected before it fired (a source held only weakly), which left an
 * attempt waiting on a silent receiver for as long as the peer kept the
 * connection open.
 */
export function createOutboundClient({ timeoutMs, policy, maxSockets = 64 }: { timeoutMs: number; policy: UrlPolicy; maxSockets?: number }) {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets }),
  };

  function send(target: OutboundTarget, headers: Record<string, string>, body: Buffer, deadline: AbortSignal): Promise<OutboundAnswer> {
    const protocol = target.url.protocol === 'http:' ? 'http:' : 'https:';
    const request = protocol === 'http:' ? http.request : https.request;
    return new Promise<OutboundAnswer>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        deadline.removeEventListener('abort', onDeadline);
        outcome();
      };
      const outgoing = request(
        target.url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(body.length) },
          agent: agents[protocol],
          lookup: pinnedLookup(target.address),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let length = 0;
          const answer = (truncated: boolean): OutboundAnswer => ({ statusCode: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), truncated });
          response.on('data', (chunk: Buffer) => {
            const room = RESPONSE_BODY_LIMIT - length;
            chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
            length += Math.min(chunk.length, room);
            if (chunk.length >= room) {
              // Enough read: the rest is not ours to wait for; the connection goes with it.
              settle(() => resolve(answer(true)));
              outgoing.destroy();
            }
          });
          response.on('end', () => settle(() => resolve(answer(false))));
          response.on('error', (error) => settle(() => reject(error)));
          // Closed before its end: the receiver cut the answer off.
          response.on('close', () => settle(() => reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' }))));
        },
      );
      function onDeadline() {
        settle(() => reject(deadline.reason as Error));
        outgoing.destroy();
      }
      deadline.addEventListener('abort', onDeadline, { once: true });
      outgoing.on('error', (error) => settle(() => reject(error)));
      outgoing.end(body);
    });
  }

  return {
    /**
     * POSTs `body` to `url`, checked and resolved by the client's policy
     * (the SSRF rules for a tenant's URL), within one deadline from that
     * check to the last byte read. Rejects with RefusedUrlError, the
     * request's error, OutboundTimeoutError, or `signal`'s reason
     * (shutdown); any status resolves.
     */
    async post(url: string, { headers, body }: { headers: Record<string, string>; body: Buffer }, signal: AbortSignal): Promise<OutboundAnswer> {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new OutboundTimeoutError(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
      const interrupted = () => deadline.abort(signal.reason);
      if (signal.aborted) interrupted();
      else signal.addEventListener('abort', interrupted, { once: true });
      try {
        const checked = await beforeDeadline(policy.check(url), deadline.signal);
        return await send({ url: checked.url, address: { address: checked.address, family: checked.family } }, headers, body, deadline.signal);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', interrupted);
      }
    },
    close(): void {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
