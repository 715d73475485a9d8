import { BlockList, isIPv6, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { errorRecord } from '../../errors/errors.js';
import { rawErrorResponse } from '../raw-responses.js';

/** The named ranges TRUST_PROXY accepts, as proxy-addr (Fastify's trustProxy) reads them. */
const NAMED_RANGES: Readonly<Record<string, readonly [string, number, 'ipv4' | 'ipv6'][]>> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/** TRUST_PROXY as a set of addresses (entries were validated by the configuration). */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const named = NAMED_RANGES[entry];
    if (named !== undefined) {
      for (const [network, prefix, family] of named) list.addSubnet(network, prefix, family);
      continue;
    }
    const [address = '', prefix] = entry.split('/');
    const family = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** The client address of a socket, IPv4-mapped IPv6 written as IPv4 (one client, one key). */
function addressOf(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export interface ConnectionBounds {
  /** Connections one client address may hold at once; 0: no bound. */
  perAddress: number;
  /** Proxies (TRUST_PROXY): they carry many clients, so their connections are not bounded per address. */
  trustProxy: readonly string[];
  /** Seconds a refused client is told to wait. */
  retryAfterSeconds: number;
}

/**
 * Bounds the connections one client address holds, so that one address (a
 * slow-loris client, a leaky pool) cannot take the process's whole
 * MAX_CONNECTIONS budget and make it unreachable for everyone else. An
 * excess connection is refused on accept, before any HTTP parsing: it gets
 * `503 overloaded` with Retry-After and is closed at once (its request, if
 * already sent, is never read). Connections from trusted proxies are not
 * bounded here.
 *
 * Node's own connection listener (the HTTP parser) is wrapped, so a refused
 * socket never reaches it: nothing it sends can run a request.
 */
export function limitConnectionsPerAddress(server: Server, { perAddress, trustProxy, retryAfterSeconds }: ConnectionBounds): void {
  if (perAddress === 0) return;
  const trusted = trustedProxies(trustProxy);
  const held = new Map<string, number>();
  const refusal = (): string =>
    rawErrorResponse(errorRecord('overloaded', `Too many connections from your address (at most ${perAddress}); close some and retry.`), {
      'Retry-After': String(retryAfterSeconds),
    });
  const listeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = addressOf(socket);
    const exempt = address === '' || trusted.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
    if (!exempt) {
      const count = held.get(address) ?? 0;
      if (count >= perAddress) {
        socket.on('error', () => socket.destroy());
        socket.end(refusal(), () => socket.destroy());
        return;
      }
      held.set(address, count + 1);
      socket.once('close', () => {
        const left = (held.get(address) ?? 1) - 1;
        if (left === 0) held.delete(address);
        else held.set(address, left);
      });
    }
    for (const listener of listeners) listener.call(server, socket);
  });
}
