/**
 * `npm run openapi`: regenerates the OpenAPI documents (openapi/*.json) and the client's types
 * from the route schemas.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateContractFiles } from './contract-files.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [file, text] of Object.entries(await generateContractFiles())) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
