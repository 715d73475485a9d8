/**
 * `npm run docs:config`: rewrites the README's generated blocks (the
 * configuration tables and the command list) from the code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withGeneratedDocs } from './readme-docs.js';

const file = fileURLToPath(new URL('../README.md', import.meta.url));
const before = readFileSync(file, 'utf8');
const after = withGeneratedDocs(before);
if (after === before) {
  process.stdout.write('README.md is up to date\n');
} else {
  writeFileSync(file, after);
  process.stdout.write('wrote README.md\n');
}
