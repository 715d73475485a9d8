import { isIP } from 'node:net';
import type { Server } from 'node:http';
import type { PortalConfig } from '../../config/config.js';
import { isLoopbackHost } from '../../shared/loopback.js';

/**
 * The portal's public origin: PORTAL_PUBLIC_URL when set; otherwise
 * `http://localhost:<port>` for a loopback HOST and `http://<HOST>:<port>`
 * for any other, with the port the server actually listens on (PORTAL_PORT=0
 * picks one), or the configured one before it listens (and for the CLI's links).
 */
export function portalOrigin(config: Pick<PortalConfig, 'publicUrl' | 'port'>, host: string, server?: Server): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const address = server?.address() ?? null;
  const port = address !== null && typeof address !== 'string' ? address.port : (config.port ?? 0);
  // On a loopback HOST the origin says `localhost`: WebAuthn refuses an IP address as a site's identity.
  const name = isLoopbackHost(host) ? 'localhost' : isIP(host) === 6 ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
