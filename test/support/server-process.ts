import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { DatabaseConfig } from '../../src/config/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  storeUrl: string;
  /** Absent when QUICKSTART_PORT=off. */
  quickstartUrl?: string;
  stdout: () => string;
  stderr: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** The DATABASE_URL a spawned server needs to open `config`'s database. */
export function databaseUrlOf(config: DatabaseConfig): string {
  switch (config.kind) {
    case 'sqlite':
      return `sqlite:${config.path}`;
  }
}

/**
 * Starts `store-orders serve` (from source, via tsx) on ephemeral ports and
 * resolves once it has printed its listening addresses. Killed when the test ends.
 */
export async function spawnServer(t: TestContext, env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', QUICKSTART_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  const quickstartOff = env.QUICKSTART_PORT === 'off';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      if (/Store Orders listening on/.test(err) && (quickstartOff || /Quickstart host listening on/.test(err))) resolve();
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${err}\n${out}`)));
  });
  const storeUrl = /Store Orders listening on (\S+)/.exec(err)?.[1];
  if (storeUrl === undefined) throw new Error(`no store address in: ${err}`);
  const quickstartUrl = /Quickstart host listening on (\S+)/.exec(err)?.[1];
  return {
    child,
    storeUrl,
    ...(quickstartUrl === undefined ? {} : { quickstartUrl }),
    stdout: () => out,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
