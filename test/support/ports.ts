import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** A loopback port where nothing listens: one the system just gave out and that was closed again. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
