import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { configurationTable, environmentHelp } from '../../src/config/config-docs.js';
import { variables } from '../../src/config/env-reader.js';
import { loadConfig } from '../../src/config/config.js';
import { GENERATED_DOCS, withGeneratedDocs } from '../../scripts/generated-docs.js';
import { ROOT } from '../support/process.js';

describe('configuration documentation', () => {
  test('when the documentation is read, then its configuration table and command list are exactly what the code generates (run npm run docs:config)', () => {
    const files = Object.keys(GENERATED_DOCS);
    assert.deepEqual(files.sort(), ['docs/configuration.md', 'docs/operations.md']);
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      assert.equal(text, withGeneratedDocs(file, text), file);
    }
  });

  test('when the table and the help are generated, then each lists every variable of the schema once, with its default', () => {
    const table = configurationTable();
    const help = environmentHelp();
    const all = variables();
    assert.ok(all.length >= 30, `only ${all.length} variables`);
    for (const { name } of all) {
      assert.equal(table.split(`| \`${name}\` |`).length, 2, `${name} in the README table once`);
      assert.match(help, new RegExp(`^    ${name}[= ]`, 'm'), `${name} in --help`);
    }
    assert.match(table, /^\| `PORT` \| `3000` \| /m);
    assert.match(help, /^ {4}DATABASE_POOL_SIZE=10\n {8}PostgreSQL connections per process; an integer from 1 to 1000$/m);
  });

  test('when the documented defaults are loaded, then they are the configuration loaded from an empty environment', () => {
    const documented = Object.fromEntries(
      [...environmentHelp().matchAll(/^ {4}([A-Z_]+)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    assert.deepEqual(loadConfig(documented, '/srv'), loadConfig({}, '/srv'));
  });
});
