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

/** A command started in-process and still running (listen): its output so far, its Ctrl-C, and its exit code once it ends. */
export interface RunningCli {
  stdout(): string;
  stderr(): string;
  /** Ctrl-C, as bin/store-orders delivers it to a command that registered (onInterrupt). */
  interrupt(): void;
  readonly exited: Promise<number>;
}

/** Runs CLI commands in-process against one fresh SQLite file (serve is refused). */
export function cliOn(t: TestContext, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fullEnv = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, ...env };
  function start(...argv: string[]): RunningCli {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: string[] = [];
    const err: string[] = [];
    stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
    const listeners = new Set<() => void>();
    const onInterrupt = (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    };
    const exited = runCli(argv, { stdout, stderr, env: fullEnv, cwd: dir, onInterrupt }, async () => {
      throw new Error('serve is not run in-process by tests');
    });
    return {
      stdout: () => out.join(''),
      stderr: () => err.join(''),
      interrupt: () => {
        for (const listener of listeners) listener();
      },
      exited,
    };
  }
  return {
    env: fullEnv,
    start,
    async run(...argv: string[]): Promise<CliResult> {
      const running = start(...argv);
      const code = await running.exited;
      return { code, stdout: running.stdout(), stderr: running.stderr() };
    },
  };
}
