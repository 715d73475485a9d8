import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { PORTAL_FILES } from './portal-render.js';

/** Where the browser package's ES modules are served: passkeys.js imports `./simplewebauthn/index.js` from here. */
const VENDOR_PATH = '/assets/simplewebauthn/';

/** Every .js file under `directory`, by its path relative to it with forward slashes. */
function moduleFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => file.split(sep).join('/'));
}

/**
 * Serves @simplewebauthn/browser's ES modules from node_modules (no CDN:
 * the CSP allows scripts from 'self' only) and the portal's passkeys.js
 * that drives them. Read once at start, like the other assets; only the
 * package's own .js files are routes, so no path reaches anything else.
 */
export function registerWebAuthnAssets(app: FastifyInstance): void {
  const entry = fileURLToPath(import.meta.resolve('@simplewebauthn/browser'));
  const root = dirname(entry);
  const files = [
    ...moduleFiles(root).map((file) => ({ path: `${VENDOR_PATH}${file}`, body: readFileSync(join(root, file)) })),
    { path: '/assets/passkeys.js', body: readFileSync(`${PORTAL_FILES}static/passkeys.js`) },
  ];
  if (!files.some((file) => file.path === `${VENDOR_PATH}${relative(root, entry).split(sep).join('/')}`)) {
    throw new Error(`@simplewebauthn/browser's entry ${entry} is not among its ES modules`);
  }
  for (const file of files) {
    app.get(file.path, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(file.body),
    );
  }
}
