import type { Config } from '../config/config.js';

/**
 * Where `serve` with this configuration is reached from this machine,
 * with the /v1 prefix: an all-interfaces HOST is reached on the loopback
 * address; PORT=0 has no known port, so it says <port>.
 */
export function localBaseUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  const port = config.port === 0 ? '<port>' : String(config.port);
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`;
}
