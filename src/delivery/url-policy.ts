import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (node:dns `lookup` with `all: true`); replaceable in tests, which fake the network. */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface UrlPolicyConfig {
  allowHttp: boolean;
  /** CIDR ranges or addresses reachable although refused below (WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks: readonly string[];
}

/**
 * A URL refused by the SSRF rules; the message says why and is safe to show
 * (it names no address the URL did not). A URL of the caller's own machine or
 * network also gets `hint`, in the message: what to use instead.
 */
export class RefusedUrlError extends Error {
  /** Why, without the hint: what a delivery attempt records. */
  readonly reason: string;

  constructor(reason: string, hint?: string) {
    super(hint === undefined ? reason : `${reason} ${hint}`);
    this.name = 'RefusedUrlError';
    this.reason = reason;
  }
}

/**
 * What a developer pointing an endpoint at their own machine should do
 * instead (docs/webhooks.md opens with it), and what the operator can allow.
 * `http` adds WEBHOOK_ALLOW_HTTP, for an http URL refused for its scheme.
 */
function localReceiverHint(http: boolean): string {
  const allow = http ? 'allow http with WEBHOOK_ALLOW_HTTP=true and the range with WEBHOOK_ALLOWED_NETWORKS' : 'allow its range with WEBHOOK_ALLOWED_NETWORKS';
  return (
    'To receive events on your own machine, run `store-orders listen --forward-to <your URL>` with your API key instead: it needs no endpoint (docs/webhooks.md). ' +
    `For a receiver on a private network, the server's operator can ${allow}.`
  );
}

/** The URL's host without the brackets of an IPv6 literal. */
const bareHost = (url: URL) => (url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname);

/** Ranges where a developer's own receiver lives: the refusals that get the local-receiver hint. */
const isLocalRange = (why: string) => why.startsWith('loopback') || why.startsWith('private');

/** A checked destination: connect to `address`, never to a fresh resolution of the name. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

// Ranges a webhook must never reach unless the operator allows them: the
// host itself, private networks, link-local (cloud metadata at
// 169.254.169.254 and fd00:ec2::254 included), multicast, unspecified,
// reserved and the translation prefixes that embed IPv4 addresses.
const REFUSED: readonly [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'private (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'reserved'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  // Forms that embed an IPv4 address or reach IPv4 or private space through
  // a relay (IPv4-mapped addresses are checked as the IPv4 address they are).
  ['::', 96, 'ipv6', 'reserved (IPv4-compatible)'],
  ['::ffff:0:0:0', 96, 'ipv6', 'reserved (IPv4-translated)'],
  ['64:ff9b::', 96, 'ipv6', 'reserved (NAT64)'],
  ['64:ff9b:1::', 48, 'ipv6', 'reserved (local NAT64)'],
  ['2001::', 32, 'ipv6', 'reserved (Teredo, embeds an IPv4 address)'],
  ['2002::', 16, 'ipv6', 'reserved (6to4, embeds an IPv4 address)'],
  ['fec0::', 10, 'ipv6', 'private (site-local)'],
  ['100::', 64, 'ipv6', 'reserved'],
  ['2001:db8::', 32, 'ipv6', 'reserved'],
  ['fc00::', 7, 'ipv6', 'private (unique local, cloud metadata)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

/**
 * The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), in
 * either spelling: dotted as a resolver gives it, or hexadecimal as the URL
 * parser writes it (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`).
 */
function ipv4Mapped(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted !== undefined) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex === null) return undefined;
  const high = Number.parseInt(hex[1] ?? '', 16);
  const low = Number.parseInt(hex[2] ?? '', 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * The SSRF rules for webhook URLs: the scheme (https unless allowHttp), no
 * credentials in the URL, and every address the host resolves to outside the
 * refused ranges unless an allowed network lists it. The caller connects to
 * the returned address, so a second resolution cannot swap in another one.
 */
export function createUrlPolicy(config: UrlPolicyConfig, resolve: Resolver) {
  const allowed = new BlockList();
  for (const entry of config.allowedNetworks) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) allowed.addAddress(address, type);
    else allowed.addSubnet(address, Number(prefix), type);
  }
  const refused = REFUSED.map(([network, prefix, type, why]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { list, why };
  });

  /** Why `address` is refused, or undefined when it may be reached. */
  function refusal(address: string): string | undefined {
    const plain = ipv4Mapped(address) ?? address;
    const type = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
    if (allowed.check(plain, type)) return undefined;
    return refused.find(({ list }) => list.check(plain, type))?.why;
  }

  /** A host that is the caller's own machine or network by its name alone: localhost (RFC 6761) or a loopback or private address. */
  function isLocalHost(host: string): boolean {
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    const why = isIP(host) === 0 ? undefined : refusal(host);
    return why !== undefined && isLocalRange(why);
  }

  /** Checks the URL's form alone (no DNS): what can be refused before anything is resolved. */
  function parse(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new RefusedUrlError('The URL is not an absolute URL.');
    }
    if (url.protocol !== 'https:' && !(config.allowHttp && url.protocol === 'http:')) {
      const local = url.protocol === 'http:' && isLocalHost(bareHost(url));
      throw new RefusedUrlError(config.allowHttp ? 'The URL must use https or http.' : 'The URL must use https.', local ? localReceiverHint(true) : undefined);
    }
    if (url.username !== '' || url.password !== '') throw new RefusedUrlError('The URL must not contain credentials.');
    if (url.hostname === '') throw new RefusedUrlError('The URL must name a host.');
    return url;
  }

  return {
    parse,
    /** Parses, resolves and checks every address; throws RefusedUrlError naming the first refusal. */
    async check(text: string): Promise<CheckedTarget> {
      const url = parse(text);
      const host = bareHost(url);
      let addresses: readonly { address: string; family: number }[];
      if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
      else {
        try {
          addresses = await resolve(host);
        } catch {
          throw new RefusedUrlError(`The host ${host} could not be resolved.`);
        }
      }
      if (addresses.length === 0) throw new RefusedUrlError(`The host ${host} could not be resolved.`);
      for (const { address } of addresses) {
        const why = refusal(address);
        if (why !== undefined) {
          const shown = address === host ? address : `${host} (${address})`;
          throw new RefusedUrlError(`The URL's host ${shown} is in a ${why} range, which webhooks may not reach.`, isLocalRange(why) ? localReceiverHint(false) : undefined);
        }
      }
      const [first] = addresses;
      if (first === undefined) throw new RefusedUrlError(`The host ${host} could not be resolved.`);
      return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
    },
  };
}

export type UrlPolicy = ReturnType<typeof createUrlPolicy>;
