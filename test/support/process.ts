import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'store-orders');

function assertBuilt(): void {
  if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does) before the end-to-end tests');
  }
}

/** Runs the built CLI to completion. */
export function runBin(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  assertBuilt();
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd: ROOT }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningServer extends SpawnedBin {
  baseUrl: string;
  /** The quickstart host's address; absent when QUICKSTART_PORT=off. */
  quickstartUrl?: string;
  /** The Prometheus scrape URL from the greeting; absent when METRICS_PORT=off. */
  metricsUrl?: string;
  /** The portal's address from the greeting; absent when PORTAL_PORT=off. */
  portalUrl?: string;
}

/** The built CLI running in a child process (killed if still running when the test ends), with what it printed so far. */
export interface SpawnedBin {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Starts `store-orders <args>` without waiting for it to end. */
export function spawnBin(t: TestContext, args: readonly string[], env: Record<string, string | undefined>): SpawnedBin {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Starts `store-orders serve` on ephemeral ports (store and quickstart hosts) and waits for its greeting. */
export async function startServer(t: TestContext, env: Record<string, string>, args: readonly string[] = []): Promise<RunningServer> {
  const { child, stdout, stderr, exited } = spawnBin(t, ['serve', ...args], { PORT: '0', QUICKSTART_PORT: '0', METRICS_PORT: '0', PORTAL_PORT: '0', HOST: '127.0.0.1', ...env });
  const quickstartOff = env.QUICKSTART_PORT?.toLowerCase() === 'off';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 15 s; stderr: ${stderr()}`)), 15_000);
    const check = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(stderr());
      if (match?.[1] !== undefined && (quickstartOff || /Quickstart host listening on/.test(stderr()))) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}; stderr: ${stderr()}`));
    });
  });
  const quickstartUrl = /Quickstart host listening on (http:\/\/[^\s]+)/.exec(stderr())?.[1];
  const metricsUrl = /Prometheus metrics at (http:\/\/[^\s]+)/.exec(stderr())?.[1];
  const portalUrl = /Self-service portal at (http:\/\/[^\s]+)/.exec(stderr())?.[1];
  return {
    child,
    baseUrl,
    ...(quickstartUrl === undefined ? {} : { quickstartUrl }),
    ...(metricsUrl === undefined ? {} : { metricsUrl }),
    ...(portalUrl === undefined ? {} : { portalUrl }),
    stdout,
    stderr,
    exited,
  };
}

/** Polls `condition` until it holds; fails after `timeoutMs`. Waits on events, asserts nothing about speed. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs a documentation shell block as a reader would (bash, errexit,
 * pipefail, from the project folder) and resolves with its stdout.
 */
export function runShellBlock(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
