import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { PORTAL_FILES } from './portal-render.js';

/** The portal's only static files, read once at start: its style sheet and its small script (copy buttons, confirmations). */
const ASSETS = [
  { path: '/assets/portal.css', file: 'static/portal.css', type: 'text/css; charset=utf-8' },
  { path: '/assets/portal.js', file: 'static/portal.js', type: 'text/javascript; charset=utf-8' },
] as const;

/** Serves the assets from this host (no CDN: the CSP allows only 'self'). */
export function registerPortalAssets(app: FastifyInstance): void {
  for (const asset of ASSETS) {
    const body = readFileSync(`${PORTAL_FILES}${asset.file}`);
    app.get(asset.path, async (_request, reply) => reply.type(asset.type).header('cache-control', 'public, max-age=300').send(body));
  }
}
