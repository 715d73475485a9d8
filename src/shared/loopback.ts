import { isIP } from 'node:net';

/** Whether `host` (a HOST value or a URL's host name) names this machine by itself: `localhost`, `::1` or an address in 127.0.0.0/8. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}
