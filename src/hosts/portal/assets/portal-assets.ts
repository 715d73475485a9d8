import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { PORTAL_FILES, type AssetLinks } from '../portal-render.js';

/** The sources: portal.js, passkeys.js (with @simplewebauthn/browser) and portal.css. */
const STATIC_DIR = `${PORTAL_FILES}static/`;
/** Where `npm run build` writes the bundles (scripts/build-portal-assets.ts); under portal/, which the package ships. */
export const ASSET_BUILD_DIR = `${PORTAL_FILES}build/`;
const MANIFEST = 'manifest.json';
const URL_PATH = '/assets/';
/** A content-hashed name never changes meaning, so a browser keeps it for a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const BUILT_NAME = /^portal-[0-9a-f]{16}\.(js|css)$/;

/** One bundled file, served at `/assets/<name>`. */
interface PortalAsset {
  name: string;
  type: string;
  body: Buffer;
}

/** The portal's one script and one style sheet: their hashed URLs for the layout, and the files. */
export interface PortalAssets extends AssetLinks {
  files: readonly [script: PortalAsset, style: PortalAsset];
}

/** What `npm run build` leaves beside the bundles: their names and the fingerprint of the sources they came from. */
interface AssetManifest {
  sources: string;
  script: string;
  style: string;
}

function hashed(stem: string, extension: string, type: string, body: Buffer): PortalAsset {
  return { name: `${stem}-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${extension}`, type, body };
}

/** The assets of a bundled script and style sheet, named by their content (`portal-<16 hex>.js`). */
function portalAssets(script: Buffer, style: Buffer): PortalAssets {
  const scriptFile = hashed('portal', 'js', 'text/javascript; charset=utf-8', script);
  const styleFile = hashed('portal', 'css', 'text/css; charset=utf-8', style);
  return { script: `${URL_PATH}${scriptFile.name}`, style: `${URL_PATH}${styleFile.name}`, files: [scriptFile, styleFile] };
}

/** SHA-256 over the names and contents of portal/static/: a build of other sources is stale. */
export function sourceFingerprint(): string {
  const hash = createHash('sha256');
  const names = readdirSync(STATIC_DIR, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
  for (const name of names) hash.update(`${name}\0`).update(readFileSync(`${STATIC_DIR}${name}`)).update('\0');
  return hash.digest('hex');
}

function isManifest(value: unknown): value is AssetManifest {
  if (typeof value !== 'object' || value === null) return false;
  const { sources, script, style } = value as Record<string, unknown>;
  return typeof sources === 'string' && typeof script === 'string' && BUILT_NAME.test(script) && typeof style === 'string' && BUILT_NAME.test(style);
}

/** The bundles written in `dir`, when they were built from the sources of `fingerprint`; undefined when absent or stale. */
export function readBuiltAssets(dir: string, fingerprint: string): PortalAssets | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(`${dir}${MANIFEST}`, 'utf8'));
    if (!isManifest(manifest) || manifest.sources !== fingerprint) return undefined;
    return portalAssets(readFileSync(`${dir}${manifest.script}`), readFileSync(`${dir}${manifest.style}`));
  } catch {
    // Never built here (a fresh checkout before `npm run build`), or a build being replaced meanwhile.
    return undefined;
  }
}

/** Replaces `dir` with the bundles and their manifest (the manifest last: a build cut short leaves none). */
export function writeBuiltAssets(dir: string, assets: PortalAssets, fingerprint: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of assets.files) writeFileSync(`${dir}${file.name}`, file.body);
  const [script, style] = assets.files;
  const manifest: AssetManifest = { sources: fingerprint, script: script.name, style: style.name };
  writeFileSync(`${dir}${MANIFEST}`, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Bundles portal/static/ now, in memory, with esbuild (a development dependency, loaded only here). */
export async function bundlePortalAssets(): Promise<PortalAssets> {
  const bundler = await import('./asset-bundle.js').catch((error: unknown) => {
    throw new Error('portal/build/ is missing or older than portal/static/, and esbuild is not installed to bundle them: run `npm run build`', { cause: error });
  });
  const { script, style } = await bundler.bundleSources(STATIC_DIR);
  return portalAssets(script, style);
}

/**
 * The portal's assets: those `npm run build` wrote to portal/build/ when
 * they match portal/static/, else bundled now from the sources (a checkout
 * run from source before a build, or edited since: tests run through tsx
 * always see the files as they are). An installed release has its build.
 */
export async function loadPortalAssets(): Promise<PortalAssets> {
  return readBuiltAssets(ASSET_BUILD_DIR, sourceFingerprint()) ?? (await bundlePortalAssets());
}

/**
 * Serves the bundles at their hashed paths only (any other /assets/ path is
 * a 404), cached for a year. They are never counted against the per-address
 * request budget: a page's own request is, and a page loads at most these
 * two files, once per browser; connection caps and load shedding still bound them.
 */
export function registerPortalAssets(app: FastifyInstance, assets: PortalAssets): void {
  for (const file of assets.files) {
    app.get(`${URL_PATH}${file.name}`, { config: { rateLimit: false } }, async (_request, reply) =>
      reply.type(file.type).header('cache-control', IMMUTABLE).send(file.body),
    );
  }
}
