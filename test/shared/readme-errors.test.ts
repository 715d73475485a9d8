import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ERROR_STATUS } from '../../src/errors/errors.js';
import { ROOT } from '../support/process.js';

test('when the README error table is read, then it lists exactly the closed set of codes in code, with their statuses', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('### Error codes'), readme.indexOf('## Decisions where the specification is silent'));
  const documented = Object.fromEntries(
    [...table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1] ?? '', Number(m[2])]),
  );
  assert.deepEqual(documented, { ...ERROR_STATUS });
});
