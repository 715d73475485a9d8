/**
 * Issue 30: the CLI's start-up as a whole process, against `node -e 0` in the
 * same rounds (each round runs the three in turn, so the machine's drift
 * falls on each alike): `store-orders --version` (target ≤ 150 ms) and a
 * database command, `accounts list` on SQLite (target ≤ 400 ms). Median wall
 * time of the rounds, and its ratio to the baseline's median.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface StartupRow {
  scenario: string;
  p50: number;
  ratio: number;
  note: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

/** Wall time of one process to its exit, in ms; fails on a non-zero exit. */
function timed(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${String(run.status)}: ${run.stderr.toString()}`);
  return ms;
}

export function cliStartupRows({ bin, work, rounds }: { bin: string; work: string; rounds: number }): StartupRow[] {
  const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(work, 'startup.db')}` };
  // The database exists and is migrated, as an operator's is: the row measures start-up, not the first migration.
  timed([bin, 'migrate'], env);
  timed([bin, 'accounts', 'create', '--name', 'bench-startup'], env);
  const variants = [
    { name: 'baseline: node -e 0', argv: ['-e', '0'] },
    { name: 'store-orders --version', argv: [bin, '--version'], target: 150 },
    { name: 'store-orders accounts list, SQLite', argv: [bin, 'accounts', 'list'], target: 400 },
  ];
  // One warm-up round: the first start after a build reads every file from disk.
  for (const variant of variants) timed(variant.argv, env);
  const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) times.get(variant.name)?.push(timed(variant.argv, env));
  }
  const baseline = median(times.get('baseline: node -e 0') ?? []);
  return variants.map((variant) => {
    const p50 = median(times.get(variant.name) ?? []);
    const target = variant.target === undefined ? '' : `; target ≤ ${variant.target} ms${p50 <= variant.target ? ' (met)' : ' (not met)'}`;
    return { scenario: `CLI start-up, whole process: ${variant.name}`, p50, ratio: p50 / baseline, note: `median wall time of ${rounds} runs, each round running the three in turn${target}` };
  });
}
