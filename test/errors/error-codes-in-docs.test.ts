import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ERROR_STATUS } from '../../src/errors/errors.js';
import { ROOT } from '../support/process.js';

test('when the error table (docs/errors.md) is read, then it lists exactly the closed set of codes in code, with their statuses', () => {
  const table = readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');
  const documented = Object.fromEntries(
    [...table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1] ?? '', Number(m[2])]),
  );
  assert.deepEqual(documented, { ...ERROR_STATUS });
});

test('when the README, the documentation and the published OpenAPI documents name an error code, then it is one of the closed set, with its status', () => {
  const documents = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  for (const document of documents) {
    const text = readFileSync(path.join(ROOT, document), 'utf8');
    for (const [, code, status] of text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) {
      assert.equal(ERROR_STATUS[code as keyof typeof ERROR_STATUS], Number(status), `${document}: ${code ?? ''}`);
    }
  }
  for (const file of ['openapi.json', 'openapi-v2.json', 'quickstart-openapi.json']) {
    const document = readFileSync(path.join(ROOT, 'openapi', file), 'utf8');
    // Descriptions name the codes of a response in parentheses: "(missing_api_key, invalid_api_key)".
    for (const [, list] of document.matchAll(/\(((?:[a-z]+_[a-z_]+)(?:, [a-z]+_[a-z_]+)*)\)/g)) {
      for (const code of (list ?? '').split(', ')) assert.ok(code in ERROR_STATUS, `${file}: ${code} is not an error code`);
    }
  }
});
