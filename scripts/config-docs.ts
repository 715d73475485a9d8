/**
 * `npm run docs:config`: rewrites the documentation's generated blocks (the
 * configuration tables in docs/configuration.md and the command list in
 * docs/operations.md) from the code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_DOCS, withGeneratedDocs } from './generated-docs.js';

for (const name of Object.keys(GENERATED_DOCS)) {
  const file = fileURLToPath(new URL(`../${name}`, import.meta.url));
  const before = readFileSync(file, 'utf8');
  const after = withGeneratedDocs(name, before);
  if (after === before) {
    process.stdout.write(`${name} is up to date\n`);
  } else {
    writeFileSync(file, after);
    process.stdout.write(`wrote ${name}\n`);
  }
}
