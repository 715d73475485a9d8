import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'store-orders');

function assertBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('End-to-end tests run the built program: run `npm run build` first (npm test does).');
  }
}

/** The environment of a spawned store-orders: only what we set, plus PATH. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env };
}

export interface ServerProcess {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  isRunning(): boolean;
  /** Sends SIGKILL and waits for the exit: a crash, nothing flushed or closed. */
  crash(): Promise<void>;
}

/**
 * Starts `bin/store-orders serve` on an ephemeral port and resolves once it
 * listens. Killed when the test ends, if still running.
 */
export async function startServer(t: Pick<TestContext, 'after'>, env: Record<string, string>): Promise<ServerProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let running = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running = false;
      resolve();
    });
  });
  t.after(async () => {
    if (running) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`store-orders serve exited before listening:\n${output}`)));
  });
  return {
    url,
    child,
    output: () => output,
    exited,
    isRunning: () => running,
    async crash() {
      if (!running) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one `bin/store-orders` command to completion. */
export async function runStoreOrders(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  return { code, stdout, stderr };
}
