import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Finding {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

for (const file of ['openapi/openapi.json', 'openapi/openapi-v2.json']) {
  test(`when Spectral lints ${file} with spectral:oas and the OWASP ruleset, then there is no error or warning`, async () => {
    // Exit code 1 only means "findings"; the JSON report is judged below.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['node_modules/@stoplight/spectral-cli/dist/index.js', 'lint', file, '--ruleset', '.spectral.mjs', '--format', 'json', '--quiet', '--fail-severity', 'error'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      if (typeof error.stdout === 'string' && error.stdout.trim().startsWith('[')) return { stdout: error.stdout };
      throw new Error(`spectral did not run: ${error.stderr ?? String(error)}`);
    });
    const findings = (JSON.parse(stdout) as Finding[]).filter((f) => f.severity <= 1);
    assert.deepEqual(
      findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`),
      [],
    );
  });
}
