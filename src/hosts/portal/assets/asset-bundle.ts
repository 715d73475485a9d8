import { build, type BuildOptions } from 'esbuild';

/** What both bundles share: one minified file each, kept in memory. */
const COMMON: BuildOptions = { bundle: true, minify: true, write: false, logLevel: 'silent', platform: 'browser' };

/** The one file of a build, as bytes. */
async function bundled(options: BuildOptions): Promise<Buffer> {
  const { outputFiles = [] } = await build({ ...COMMON, ...options });
  const [file, ...more] = outputFiles;
  if (file === undefined || more.length > 0) throw new Error(`esbuild wrote ${outputFiles.length} files for one bundle`);
  return Buffer.from(file.contents);
}

/**
 * The portal's script and style sheet, bundled and minified from
 * `staticDir` (portal/static/): portal.js (copy buttons, confirmations) and
 * passkeys.js with @simplewebauthn/browser, as one classic script run after
 * the page is parsed (`defer`), and portal.css. One request each instead of
 * some twenty ES modules. Build-time only: the server imports this module
 * solely when portal/build/ is absent or stale (portal-assets.ts).
 */
export async function bundleSources(staticDir: string): Promise<{ script: Buffer; style: Buffer }> {
  const [script, style] = await Promise.all([
    bundled({
      stdin: { contents: "import './portal.js';\nimport './passkeys.js';\n", resolveDir: staticDir, sourcefile: 'portal-bundle.js', loader: 'js' },
      format: 'iife',
      target: 'es2020',
    }),
    bundled({ entryPoints: [`${staticDir}portal.css`] }),
  ]);
  return { script, style };
}
