/**
 * A benchmark's server process: spawned with its standard output to a file
 * (or nowhere) and its standard error read until it says where it listens.
 * bench.ts and profile-stages.ts start every server this way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

export interface ListeningChild {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `children` collects the process, for the caller's clean-up on exit. */
export async function startListening(command: string, argv: string[], env: Record<string, string>, children: ChildProcess[], stdout?: string): Promise<ListeningChild> {
  const out = stdout === undefined ? 'ignore' : openSync(stdout, 'a');
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', out, 'pipe'] });
  if (typeof out === 'number') closeSync(out);
  children.push(child);
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(err);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited ${code}: ${err}`)));
  });
  return {
    url,
    pid: child.pid ?? 0,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
