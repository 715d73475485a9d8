import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { TestContext } from 'node:test';
import { runCli } from '../../src/cli/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs CLI commands in-process against one fresh SQLite file (serve is refused). */
export function cliOn(t: TestContext, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fullEnv = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, ...env };
  return {
    env: fullEnv,
    async run(...argv: string[]): Promise<CliResult> {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: string[] = [];
      const err: string[] = [];
      stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
      stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
      const code = await runCli(argv, { stdout, stderr, env: fullEnv, cwd: dir }, async () => {
        throw new Error('serve is not run in-process by tests');
      });
      return { code, stdout: out.join(''), stderr: err.join('') };
    },
  };
}
