/**
 * Part of `npm run build`, after tsc: replaces dist/config/config.js with
 * one file holding the configuration reader and TypeBox, which it validates
 * with. TypeBox ships as some 680 small ES modules; Node resolving and
 * reading each one was most of a command's start-up (`store-orders accounts
 * list` ~0.3 s of module loading before it opened the database). The module
 * keeps its path and exports, so everything that imports it is unchanged;
 * tests, which run src/ through tsx, never see the bundle.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

await build({
  absWorkingDir: ROOT,
  entryPoints: ['src/config/config.ts'],
  outfile: 'dist/config/config.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
process.stdout.write('bundled dist/config/config.js (the configuration reader with TypeBox)\n');
