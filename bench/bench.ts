/*
 * npm run bench [-- --quick] [-- --only startup,list,cancel,big,import,workers,observability,request-logs,request-logs-pg,webhooks] [-- --no-postgres]
 *
 * Starts a raw node:http baseline and the built server (each pinned to core 0
 * where taskset exists), seeds data through the CLI, drives each scenario
 * from core 1 with wrk (or autocannon when wrk is absent) for a bounded time,
 * and prints one table. The PostgreSQL rows run on BENCH_POSTGRES_URL, or on
 * an embedded PostgreSQL (fsync on) started here; --no-postgres skips them.
 */
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startEmbeddedPostgres, type EmbeddedServer } from '../test/support/embedded-postgres.js';
import { cliStartupRows } from './cli-startup.js';
import { startListening, type ListeningChild } from './listening-child.js';
import { requestLogsPgRows } from './request-logs-pg.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'store-orders');
/** Node flags of every measured server: its heap settled as a long-running process's is (bench/settled-heap.mjs). */
const SETTLED = ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'bench', 'settled-heap.mjs')).href];
const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
const ONLY = onlyIndex === -1 ? undefined : new Set((args[onlyIndex + 1] ?? '').split(','));
const runs = (name: string) => ONLY === undefined || ONLY.has(name);

const DURATION_S = QUICK ? 2 : 10;
const WARMUP_S = QUICK ? 1 : 3;
/**
 * A read scenario's ratio comes from rounds that alternate it with the
 * baseline (A B, B A, ...): on a shared VM the machine's speed drifts by
 * tens of percent within minutes, and measuring each once, minutes apart,
 * measured the drift as much as the server.
 */
const ROUNDS = QUICK ? 2 : 5;
const ROUND_S = QUICK ? 1 : 2;
/**
 * The request logs' row measures a cost of a few per cent, which five rounds
 * of 2 s cannot tell from the machine's drift (their per-round ratios spread
 * over 0.2 on these machines): it takes three times as many.
 */
const REQUEST_LOG_ROUNDS = QUICK ? 2 : 15;
/** A side-by-side round of the request logs' row holds several of the recorder's flushes (one a second), each a burst of a few milliseconds. */
const SIDE_BY_SIDE_S = QUICK ? 1 : 5;
const BIG_ORDERS = QUICK ? 100_000 : 1_000_000;
const BIG_REPEATS = QUICK ? 3 : 10;
const CANCEL_BLOCK = QUICK ? 60_000 : 250_000;
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const HAS_WRK = has('wrk');
const PIN = has('taskset') && cpus().length >= 2;
const SERVER_CORE = '0';
const CLIENT_CORE = '1';

const work = mkdtempSync(path.join(tmpdir(), 'store-orders-bench-'));
const children: ChildProcess[] = [];
const cleanup = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

interface Row {
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  rssMb?: number;
  /** Server CPU time per request, µs. */
  cpuUs?: number;
  ratio?: number;
  note?: string;
}
const rows: Row[] = [];

// ---------- processes ----------

function pinned(core: string, command: string, argv: string[]): [string, string[]] {
  return PIN ? ['taskset', ['-c', core, command, ...argv]] : [command, argv];
}

/** Moves an embedded PostgreSQL (its postmaster, whose later children inherit it, and every process running now) to `core`. */
function pinPostgres(dataDir: string, core: string): void {
  const postmaster = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '';
  const children = spawnSync('pgrep', ['-P', postmaster]).stdout.toString().split('\n').filter((pid) => pid !== '');
  // spawnSync: a process that ended in between is no failure.
  for (const pid of [postmaster, ...children]) spawnSync('taskset', ['-a', '-p', '-c', core, pid], { stdio: 'ignore' });
}

function cli(env: Record<string, string>, argv: string[], input?: string): string {
  return execFileSync(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env }, input, maxBuffer: 1 << 26 }).toString();
}

type Server = ListeningChild;

/** `stdout`: a file the process's standard output goes to (our server's log lines), or nowhere. */
function start(command: string, argv: string[], env: Record<string, string>, core = SERVER_CORE, stdout?: string): Promise<Server> {
  const [cmd, full] = pinned(core, command, argv);
  return startListening(cmd, full, env, children, stdout);
}

/**
 * Our server as `npm start` runs it: logs at the default level (a line per
 * request), written to a file as a service's output is, except: no
 * quickstart host (not measured), and a rate limit no load generator
 * reaches (the limiter still counts every request). No setting is made for
 * the benchmark (issue 29).
 */
function startOurs(env: Record<string, string>, extra: string[] = [], core = SERVER_CORE): Promise<Server> {
  return start(
    process.execPath,
    [...SETTLED, BIN, 'serve', ...extra],
    { PORT: '0', HOST: '127.0.0.1', QUICKSTART_PORT: 'off', PORTAL_PORT: 'off', METRICS_PORT: '0', RATE_LIMIT_REQUESTS: '1000000000', ...env },
    core,
    path.join(work, `server-${++serversStarted}.log`),
  );
}
let serversStarted = 0;

function startBaseline(mode: 'bytes' | 'stringify' | 'bytes-headers' | 'fastify-headers', file: string, headersFile?: string): Promise<Server> {
  return start(process.execPath, [...SETTLED, '--import', 'tsx', path.join(ROOT, 'bench', 'baseline-server.ts'), mode, file, ...(headersFile === undefined ? [] : [headersFile])], {});
}

/** The process and its cluster workers. */
function family(pid: number): number[] {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...kids.flatMap(family)];
  } catch {
    return [pid];
  }
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Resets the kernel's peak-RSS mark so VmHWM measures this scenario only. */
function resetPeak(pid: number): void {
  for (const p of family(pid)) {
    try {
      writeFileSync(`/proc/${p}/clear_refs`, '5');
    } catch {
      // Not permitted here: the peak then covers the process's whole life.
    }
  }
}

const peakMb = (pid: number) => family(pid).reduce((sum, p) => sum + statusKb(p, 'VmHWM'), 0) / 1024;
const rssMb = (pid: number) => family(pid).reduce((sum, p) => sum + statusKb(p, 'VmRSS'), 0) / 1024;

// ---------- load ----------

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** The server's CPU time (user + system, workers included) per request answered, when its pid was given. */
  cpuUs?: number;
}

/** CPU time of a process and its cluster workers so far, in µs (/proc/<pid>/stat utime + stime; 0 where /proc is absent). */
const TICK_US = 1e6 / (Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100);
function cpuTimeUs(pid: number): number {
  return family(pid).reduce((sum, p) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      // After "pid (comm) ", utime and stime are the 12th and 13th fields.
      return sum + (Number(fields[11]) + Number(fields[12])) * TICK_US;
    } catch {
      return sum;
    }
  }, 0);
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : n;
}

interface LoadOptions {
  connections: number;
  headers: Record<string, string>;
  script?: string;
  scriptArgs?: string[];
  /** Default DURATION_S. */
  seconds?: number;
  /** Default: a read scenario (no script) is first run unmeasured for WARMUP_S. */
  warmUp?: boolean;
  /** The server's pid, to measure its CPU time per request. */
  pid?: number;
}

async function load(url: string, options: LoadOptions): Promise<Load> {
  const { pid, script, warmUp = script === undefined } = options;
  // A read scenario is run once unmeasured first, so that every server is
  // measured warm (JIT, caches, connections); a cancel run cannot be
  // repeated (its orders are then cancelled), and its first second is part of it.
  if (warmUp) await drive(url, { ...options, seconds: WARMUP_S });
  const before = pid === undefined ? 0 : cpuTimeUs(pid);
  const result = await drive(url, options);
  if (pid === undefined || result.rps === 0) return result;
  // wrk's Requests/sec is over its whole run, so rps × seconds is the number answered.
  return { ...result, cpuUs: (cpuTimeUs(pid) - before) / (result.rps * (options.seconds ?? DURATION_S)) };
}

async function drive(url: string, { connections, headers, script, scriptArgs = [], seconds = DURATION_S }: LoadOptions): Promise<Load> {
  if (HAS_WRK) {
    const headerArgs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const argv = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...headerArgs];
    if (script !== undefined) argv.push('-s', script);
    argv.push(url);
    if (scriptArgs.length > 0) argv.push('--', ...scriptArgs);
    const [cmd, full] = pinned(CLIENT_CORE, 'wrk', argv);
    // Not synchronous: side by side (sideBySide), two clients run at once.
    const { stdout: out } = await promisify(execFile)(cmd, full);
    const latency = (pct: string) => {
      const match = new RegExp(`^\\s+${pct}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
      return match?.[1] === undefined || match[2] === undefined ? NaN : toMs(match[1], match[2]);
    };
    return {
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
      p50: latency('50'),
      p99: latency('99'),
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors: connect (\d+)/.exec(out)?.[1] ?? 0),
    };
  }
  // Fallback: autocannon in this process (it then shares a core with nothing pinned).
  // A variable specifier: autocannon ships no types, and only this fallback needs it.
  const specifier = 'autocannon';
  const { default: autocannon } = (await import(specifier)) as { default: AutocannonFn };
  let next = Number(scriptArgs[0] ?? 0);
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    requests: script === undefined ? undefined : [{ method: 'DELETE', setupRequest: (req: { path: string }) => ({ ...req, path: `/v1/store/orders/${++next}` }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

type AutocannonFn = (options: Record<string, unknown>) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}>;

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

interface Paired {
  /** Medians over the rounds. */
  ours: Load;
  baseline: Load;
  /** Per round: our throughput over the baseline's in that round. */
  ratios: number[];
  /** Median of the per-round ratios. */
  ratio: number;
  /** Median of the per-round p99 ratios (ours over the baseline's). */
  p99Ratio: number;
  /** Our best round over the baseline's best round. */
  best: number;
  /** The baseline's CPU time per request over ours: the throughput ratio if both were bound by their own core alone. */
  cpuRatio: number;
}

/** Runs a read scenario in ROUNDS rounds alternating with the baseline, both warm, each round ROUND_S seconds per side. */
async function paired(baseline: Server, ours: Server, url: string, headers: Record<string, string>, baselineHeaders: Record<string, string>): Promise<Paired> {
  const connections = 50;
  await load(url, { connections, headers, seconds: WARMUP_S, warmUp: false });
  const oursLoads: Load[] = [];
  const baselineLoads: Load[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const run = async (which: 'ours' | 'baseline') => {
      if (which === 'ours') oursLoads.push(await load(url, { connections, headers, seconds: ROUND_S, warmUp: false, pid: ours.pid }));
      else baselineLoads.push(await load(`${baseline.url}/`, { connections, headers: baselineHeaders, seconds: ROUND_S, warmUp: false, pid: baseline.pid }));
    };
    // Alternating which goes first, so that a drift over the run favours neither.
    await run(round % 2 === 0 ? 'baseline' : 'ours');
    await run(round % 2 === 0 ? 'ours' : 'baseline');
  }
  const med = (loads: Load[]): Load => ({
    rps: median(loads.map((l) => l.rps)),
    p50: median(loads.map((l) => l.p50)),
    p99: median(loads.map((l) => l.p99)),
    non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
    cpuUs: median(loads.map((l) => l.cpuUs ?? NaN)),
  });
  const ratios = oursLoads.map((l, i) => l.rps / (baselineLoads[i]?.rps ?? NaN));
  const o = med(oursLoads);
  const b = med(baselineLoads);
  return {
    ours: o,
    baseline: b,
    ratios,
    ratio: median(ratios),
    p99Ratio: median(oursLoads.map((l, i) => l.p99 / (baselineLoads[i]?.p99 ?? NaN))),
    best: Math.max(...oursLoads.map((l) => l.rps)) / Math.max(...baselineLoads.map((l) => l.rps)),
    cpuRatio: (b.cpuUs ?? NaN) / (o.cpuUs ?? NaN),
  };
}

/** The note of a paired row: the spread of its rounds. */
function roundsNote(p: Paired, extra = ''): string {
  return (
    `${ROUNDS} rounds, ratios ${p.ratios.map((r) => r.toFixed(2)).join('/')}, best/best ${p.best.toFixed(2)}, CPU per request ${p.cpuRatio.toFixed(2)}; ` +
    `p99 ${p.p99Ratio.toFixed(2)}× baseline's${p.ours.non2xx ? `, ${p.ours.non2xx} non-2xx` : ''}${extra}`
  );
}

// ---------- data ----------

/** Orders with ids from `firstId` on, or without ids (storage chooses them) when it is undefined. */
function ndjson(count: number, firstId: number | undefined): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = firstId === undefined ? '' : `"id":${firstId + i},`;
    // Every thousandth pet id is beyond 2^53, so int64 digits stay exercised.
    const petId = i % 1000 === 0 ? '9007199254740993' : String(1_000_000 + i);
    lines.push(`{${id}"petId":${petId},"quantity":${1 + (i % 5)},"shipDate":"2026-12-0${1 + (i % 9)}T10:00:00Z","complete":${i % 2 === 0}}`);
  }
  return `${lines.join('\n')}\n`;
}

function get(url: string, headers: Record<string, string>): Promise<{ status: number; ttfbMs: number; totalMs: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { headers, agent: false }, (res) => {
      let ttfb = -1;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        if (ttfb < 0) ttfb = performance.now() - t0;
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ttfbMs: ttfb, totalMs: performance.now() - t0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Runs `repeats` big listings one after another while probing a small request every 10 ms. */
async function bigListing(url: string, headers: Record<string, string>, probeUrl: string, pid: number, repeats: number) {
  resetPeak(pid);
  const before = rssMb(pid);
  let probing = true;
  let worstProbe = 0;
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      await get(probeUrl, {});
      worstProbe = Math.max(worstProbe, performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const results = [];
  const rssAfter: number[] = [];
  for (let i = 0; i < repeats; i++) {
    results.push(await get(url, headers));
    rssAfter.push(rssMb(pid));
  }
  probing = false;
  await probe;
  return {
    status: results[0]?.status,
    bytes: results[0]?.bytes ?? 0,
    ttfbMs: median(results.map((r) => r.ttfbMs)),
    totalMs: median(results.map((r) => r.totalMs)),
    peakGrowthMb: peakMb(pid) - before,
    rssBefore: before,
    rssAfter,
    worstProbeMs: worstProbe,
  };
}

/** `orders import` through the CLI, in seconds (the whole run: process start, parsing, storage, commit). */
function timedImport(env: Record<string, string>, accountId: number, file: string): number {
  const t0 = performance.now();
  cli(env, ['orders', 'import', '--account', String(accountId), file]);
  return (performance.now() - t0) / 1000;
}

function importRow(what: string, seconds: number): Row {
  return { scenario: `orders import, ${what} (whole CLI run)`, note: `${seconds.toFixed(1)} s, ${Math.round(BIG_ORDERS / seconds).toLocaleString('en-US')} orders/s` };
}

// ---------- scenarios ----------

async function main(): Promise<void> {
  const info = `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load generator: ${HAS_WRK ? 'wrk' : 'autocannon'}, ` +
    `${PIN ? `server pinned to core ${SERVER_CORE}, client to core ${CLIENT_CORE}` : 'no pinning'}, ${DURATION_S} s per scenario`;
  process.stderr.write(`${info}\n`);
  const env = { DATABASE_URL: `sqlite:${path.join(work, 'bench.db')}` };

  // Issue 30: the CLI's start-up as a whole process (--only startup runs these alone, without seeding or serving).
  if (runs('startup')) rows.push(...cliStartupRows({ bin: BIN, work, rounds: QUICK ? 5 : 15 }));
  // Issue 28: a page of a 10-million-row request log on a PostgreSQL of its own (fills for a few minutes; not in a full run).
  if (ONLY?.has('request-logs-pg') === true && !args.includes('--no-postgres')) {
    rows.push(...(await requestLogsPgRows({ quick: QUICK, log: (line) => process.stderr.write(`${line}\n`) })));
  }
  if (ONLY !== undefined && [...ONLY].every((name) => name === 'startup' || name === 'request-logs-pg')) {
    printTable(info);
    return;
  }

  // Seed through the CLI.
  cli(env, ['migrate']);
  const accounts: { id: string; key: string }[] = [];
  for (const name of ['list', 'cancel', 'big']) {
    const account = JSON.parse(cli(env, ['accounts', 'create', '--name', `bench-${name}`, '--json'])) as { id: number };
    const key = JSON.parse(cli(env, ['keys', 'create', '--account', String(account.id), '--json'])) as { key: string };
    accounts.push({ id: String(account.id), key: key.key });
  }
  const [listAccount, cancelAccount, bigAccount] = accounts as [{ id: string; key: string }, { id: string; key: string }, { id: string; key: string }];
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const importFile = (name: string, text: string) => {
    const file = path.join(work, name);
    writeFileSync(file, text);
    return file;
  };
  let noIds: string | undefined;
  /** BIG_ORDERS orders without ids, written once for every backend's import row. */
  const noIdsFile = () => (noIds ??= importFile('no-ids.ndjson', ndjson(BIG_ORDERS, undefined)));
  cli(env, ['orders', 'import', '--account', listAccount.id, importFile('list.ndjson', ndjson(100, 9_007_199_254_740_000))]);
  cli(env, ['orders', 'import', '--account', cancelAccount.id, importFile('c1.ndjson', ndjson(CANCEL_BLOCK / 5, 100_000_001))]);
  cli(env, ['orders', 'import', '--account', cancelAccount.id, importFile('c64.ndjson', ndjson(CANCEL_BLOCK, 200_000_001))]);

  let bigFile: string | undefined;
  if (runs('big') || runs('import')) {
    bigFile = importFile('big.ndjson', ndjson(BIG_ORDERS, 1));
    const t0 = performance.now();
    cli(env, ['orders', 'import', '--account', bigAccount.id, bigFile]);
    const seconds = (performance.now() - t0) / 1000;
    rows.push(importRow(`${BIG_ORDERS.toLocaleString('en-US')} orders with ids, SQLite`, seconds));
  }
  if (runs('import')) {
    const account = JSON.parse(cli(env, ['accounts', 'create', '--name', 'bench-import', '--json'])) as { id: number };
    rows.push(importRow(`${BIG_ORDERS.toLocaleString('en-US')} orders without ids, SQLite`, timedImport(env, account.id, noIdsFile())));
  }

  const ours = await startOurs(env);
  const listUrl = `${ours.url}/v1/store/orders`;
  const { body: listBody, headers: listHeaders } = await new Promise<{ body: Buffer; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http.get(listUrl, { headers: auth(listAccount.key) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve({ body: Buffer.concat(chunks), headers: res.headers })).on('error', reject);
    });
  });
  const bodyFile = importFile('list-body.json', listBody.toString('utf8'));
  // The headers our server sends with it, for the reference servers that send the same.
  const sentHeaders = Object.fromEntries(
    Object.entries(listHeaders).filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name)),
  );
  const headersFile = importFile('list-headers.json', JSON.stringify(sentHeaders));

  // Kept running until the last read scenario: every ratio is measured against it in the same minutes.
  const baseline = runs('list') ? await startBaseline('bytes', bodyFile) : undefined;
  const against = async (server: Server, url: string, headers: Record<string, string>): Promise<Paired> => {
    if (baseline === undefined) throw new Error('no baseline: the list scenarios are off');
    return paired(baseline, server, url, headers, auth(listAccount.key));
  };
  const pairedRow = (scenario: string, p: Paired, pid: number, extra = ''): Row => ({
    scenario,
    rps: p.ours.rps,
    p50: p.ours.p50,
    p99: p.ours.p99,
    rssMb: peakMb(pid),
    cpuUs: p.ours.cpuUs,
    ratio: p.ratio,
    note: roundsNote(p, extra),
  });
  if (baseline !== undefined) {
    await load(`${baseline.url}/`, { connections: 50, headers: auth(listAccount.key), seconds: WARMUP_S, warmUp: false });
    resetPeak(ours.pid);
    const l = await against(ours, listUrl, auth(listAccount.key));
    rows.push({ scenario: `baseline: raw node:http, precomputed ${listBody.length} B (100 orders)`, rps: l.baseline.rps, p50: l.baseline.p50, p99: l.baseline.p99, cpuUs: l.baseline.cpuUs, rssMb: peakMb(baseline.pid), ratio: 1, note: `medians of the ${ROUNDS} rounds paired with the next row` });
    rows.push(pairedRow('GET /v1/store/orders, 100 orders, SQLite, 1 process', l, ours.pid));

    // Reference points, not targets: what merely sending our headers costs,
    // without and with Fastify. Left out of --quick, which must stay under a minute.
    for (const [mode, label] of QUICK ? [] : [
      ['bytes-headers', `reference: raw node:http, same bytes + our ${Object.keys(sentHeaders).length} response headers`],
      ['fastify-headers', 'reference: Fastify 5, one route, no hooks, same bytes + headers'],
    ] as const) {
      const reference = await startBaseline(mode, bodyFile, headersFile);
      rows.push(pairedRow(label, await against(reference, `${reference.url}/`, auth(listAccount.key)), reference.pid));
      await reference.stop();
    }

    // The 304 and v2 rows are not targets of the issue: left out of --quick, which must stay under a minute.
    if (!QUICK) {
      const etag = await new Promise<string>((resolve, reject) => {
        http.get(listUrl, { headers: auth(listAccount.key) }, (res) => {
          res.resume().on('end', () => resolve(String(res.headers.etag))).on('error', reject);
        });
      });
      const n = await against(ours, listUrl, { ...auth(listAccount.key), 'if-none-match': etag });
      rows.push(pairedRow('GET /v1/store/orders, If-None-Match current (304), SQLite', n, ours.pid, '; no body, against the 9 KB baseline'));

      const v2 = await against(ours, `${ours.url}/v2/store/orders?limit=100`, auth(listAccount.key));
      rows.push(pairedRow('GET /v2/store/orders?limit=100 (beta), 100 orders, SQLite', v2, ours.pid, '; pages cached by validator and query'));
    }
  }

  const cancelScript = importFile('cancel.lua', [
    'local id = 0',
    'init = function(args) id = tonumber(args[1]) end',
    'request = function() id = id + 1; return wrk.format("DELETE", "/v1/store/orders/" .. id) end',
    '',
  ].join('\n'));
  const cancels = async (server: Server, key: string, backend: string) => {
    for (const [connections, firstId] of [[1, 100_000_000], [64, 200_000_000]] as const) {
      resetPeak(server.pid);
      const c = await load(`${server.url}/`, { connections, headers: auth(key), script: cancelScript, scriptArgs: [String(firstId)], pid: server.pid });
      rows.push({ scenario: `DELETE cancel, durable, ${backend}, ${connections} client${connections > 1 ? 's' : ''}`, rps: c.rps, p50: c.p50, p99: c.p99, cpuUs: c.cpuUs, rssMb: peakMb(server.pid), note: c.non2xx ? `${c.non2xx} non-2xx (ran out of pending orders?)` : 'every answer 204' });
    }
  };
  if (runs('cancel')) await cancels(ours, cancelAccount.key, 'SQLite synchronous=FULL');

  if (runs('big') && bigFile !== undefined) {
    const probeUrl = `${ours.url}/healthz`;
    const mine = await bigListing(listUrl, auth(bigAccount.key), probeUrl, ours.pid, BIG_REPEATS);
    const baseline = await startBaseline('stringify', bigFile);
    const theirs = await bigListing(`${baseline.url}/`, {}, `${baseline.url}/`, baseline.pid, 1);
    // The baseline's "probe" is itself a full listing; report its blocking from the listing's own time instead.
    await baseline.stop();
    const label = `${BIG_ORDERS.toLocaleString('en-US')} orders`;
    rows.push({
      scenario: `baseline: raw node JSON.stringify of ${label} in memory, sent`,
      rssMb: theirs.rssBefore,
      note: `${(theirs.bytes / 1e6).toFixed(0)} MB; first byte ${theirs.ttfbMs.toFixed(0)} ms, total ${theirs.totalMs.toFixed(0)} ms, RSS growth ${theirs.peakGrowthMb.toFixed(0)} MB, process blocked throughout`,
    });
    rows.push({
      scenario: `GET /v1/store/orders, ${label}, streamed, ×${BIG_REPEATS}`,
      rssMb: mine.rssBefore,
      ratio: theirs.totalMs / mine.totalMs,
      note: `${(mine.bytes / 1e6).toFixed(0)} MB; first byte ${mine.ttfbMs.toFixed(0)} ms, total ${mine.totalMs.toFixed(0)} ms (${(mine.totalMs / theirs.totalMs).toFixed(2)}× baseline), ` +
        `peak RSS growth ${mine.peakGrowthMb.toFixed(0)} MB, RSS after each: ${mine.rssAfter.map((r) => r.toFixed(0)).join('/')} MB, worst /healthz meanwhile ${mine.worstProbeMs.toFixed(0)} ms`,
    });
  }
  await ours.stop();

  if (runs('observability')) await observabilityRows(env, listAccount.key);
  if (runs('request-logs')) await requestLogsRows(env, listAccount.key);

  // Not a target with a figure: left out of --quick, which must stay under a minute.
  if (!QUICK && runs('workers') && baseline !== undefined) {
    const two = await startOurs(env, ['--workers', '2'], `${SERVER_CORE},${CLIENT_CORE}`);
    rows.push(pairedRow('GET /v1/store/orders, 100 orders, SQLite, --workers 2 (both cores, shared with wrk)', await against(two, `${two.url}/v1/store/orders`, auth(listAccount.key)), two.pid));
    await two.stop();
  }

  if (runs('webhooks')) await webhookRows();

  /**
   * Webhooks on SQLite: durable cancels at 64 clients without and with one
   * endpoint subscribed to order.cancelled (same server, same minutes; the
   * fan-out is in the cancel's transaction and the engine delivers in the
   * same process meanwhile), then signed deliveries per second to a local
   * receiver, from a queue filled by an import while no engine ran.
   */
  async function webhookRows(): Promise<void> {
    const receiver = await start(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'webhook-receiver.ts')], {}, CLIENT_CORE);
    const hookUrl = (name: string) => `${receiver.url}/${name}`;
    const received = async (name: string) =>
      (await (await fetch(`${receiver.url}/count?path=/${name}`)).json()) as { n: number; first: number; last: number; p50: number | null; p99: number | null };
    // The engine as configured by default (WEBHOOK_POLL_INTERVAL_MS 250, 64 slots, 16 per endpoint); only loopback receivers allowed.
    const hookEnv = { ...env, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
    const seeded = (name: string) => {
      const account = JSON.parse(cli(env, ['accounts', 'create', '--name', name, '--json'])) as { id: number };
      const key = (JSON.parse(cli(env, ['keys', 'create', '--account', String(account.id), '--json'])) as { key: string }).key;
      return { id: String(account.id), key };
    };
    const subscribe = async (server: Server, key: string, name: string, eventTypes?: string[]) => {
      const response = await fetch(`${server.url}/v2/webhook-endpoints`, {
        method: 'POST',
        headers: { ...auth(key), 'content-type': 'application/json' },
        body: JSON.stringify({ url: hookUrl(name), ...(eventTypes === undefined ? {} : { eventTypes }) }),
      });
      if (response.status !== 201) throw new Error(`creating a webhook endpoint answered ${response.status}: ${await response.text()}`);
    };

    const plain = seeded('bench-hooks-none');
    const hooked = seeded('bench-hooks-one');
    cli(env, ['orders', 'import', '--account', plain.id, importFile('h-none.ndjson', ndjson(CANCEL_BLOCK, 300_000_001))]);
    cli(env, ['orders', 'import', '--account', hooked.id, importFile('h-one.ndjson', ndjson(CANCEL_BLOCK, 400_000_001))]);
    const server = await startOurs(hookEnv);
    await subscribe(server, hooked.key, 'cancels', ['order.cancelled']);
    resetPeak(server.pid);
    const none = await load(`${server.url}/`, { connections: 64, headers: auth(plain.key), script: cancelScript, scriptArgs: ['300000000'], pid: server.pid });
    const one = await load(`${server.url}/`, { connections: 64, headers: auth(hooked.key), script: cancelScript, scriptArgs: ['400000000'], pid: server.pid });
    const during = (await received('cancels')).n;
    // The cancels' deliveries still queued would share the engine with the rows below: deleted with their endpoint.
    const hooks = (await (await fetch(`${server.url}/v2/webhook-endpoints`, { headers: auth(hooked.key) })).json()) as { data: { id: string }[] };
    for (const { id } of hooks.data) await fetch(`${server.url}/v2/webhook-endpoints/${id}`, { method: 'DELETE', headers: auth(hooked.key) });
    rows.push({ scenario: 'DELETE cancel, durable, SQLite, 64 clients, no webhook endpoint', rps: none.rps, p50: none.p50, p99: none.p99, cpuUs: none.cpuUs, rssMb: peakMb(server.pid), ratio: 1, note: none.non2xx ? `${none.non2xx} non-2xx` : 'every answer 204' });
    rows.push({
      scenario: 'DELETE cancel, durable, SQLite, 64 clients, one subscribed webhook endpoint',
      rps: one.rps,
      p50: one.p50,
      p99: one.p99,
      cpuUs: one.cpuUs,
      rssMb: peakMb(server.pid),
      ratio: one.rps / none.rps,
      note: `${one.non2xx ? `${one.non2xx} non-2xx; ` : ''}× the row above (target ≥ 0.9, issue 26); ${during.toLocaleString('en-US')} signed deliveries received by the end of the run, sent by the same process`,
    });
    await server.stop();

    const QUEUED = QUICK ? 10_000 : 50_000;
    const bulk = seeded('bench-hooks-throughput');
    const setup = await startOurs(hookEnv);
    await subscribe(setup, bulk.key, 'bulk');
    await setup.stop();
    // Each imported order's order.created event queues one delivery, in the import's transaction.
    cli(env, ['orders', 'import', '--account', bulk.id, importFile('h-bulk.ndjson', ndjson(QUEUED, 900_000_001))]);
    /** Starts a server on a queue filled while none ran and times its deliveries to `name` (a trailing `*`: every path under it), first to last. */
    const drain = async (name: string, expected: number, target = '') => {
      const server = await startOurs(hookEnv);
      const started = performance.now();
      while ((await received(name)).n < expected && performance.now() - started < 120_000) await new Promise((resolve) => setTimeout(resolve, 100));
      const count = await received(name);
      const seconds = (count.last - count.first) / 1000;
      const rssMb = peakMb(server.pid);
      await server.stop();
      return { rssMb, note: `${count.n.toLocaleString('en-US')} received in ${seconds.toFixed(2)} s: ${Math.round(count.n / seconds).toLocaleString('en-US')} deliveries/s${target}, first to last` };
    };
    rows.push({ scenario: `webhook deliveries, signed, to a local receiver, SQLite (${QUEUED.toLocaleString('en-US')} queued)`, ...(await drain('bulk', QUEUED, ' (target ≥ 5,000)')) });

    // 100 endpoints at once: one store's 100 endpoints, each queued 1/100 of the deliveries while no engine ran.
    const ENDPOINTS = 100;
    const many = seeded('bench-hooks-many');
    const setupMany = await startOurs({ ...hookEnv, WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: String(ENDPOINTS) });
    for (let i = 0; i < ENDPOINTS; i++) await subscribe(setupMany, many.key, `many/e${i}`, ['order.created']);
    await setupMany.stop();
    const PER_ENDPOINT = QUEUED / ENDPOINTS;
    cli(env, ['orders', 'import', '--account', many.id, importFile('h-many.ndjson', ndjson(PER_ENDPOINT, 950_000_001))]);
    rows.push({
      scenario: `webhook deliveries, signed, ${ENDPOINTS} endpoints at once, SQLite (${QUEUED.toLocaleString('en-US')} queued, ${PER_ENDPOINT.toLocaleString('en-US')} each)`,
      ...(await drain('many/*', QUEUED)),
    });

    // Latency: from an event's createdAt (taken just before its commit) to its arrival at the receiver.
    const SAMPLES = QUICK ? 50 : 200;
    const latencyStore = seeded('bench-hooks-latency');
    const slowStore = seeded('bench-hooks-slow');
    cli(env, ['orders', 'import', '--account', latencyStore.id, importFile('h-latency.ndjson', ndjson(SAMPLES * 2 + 2_000, 700_000_001))]);
    const live = await startOurs(hookEnv);
    await subscribe(live, latencyStore.key, 'latency/idle', ['order.cancelled']);
    for (let i = 0; i < SAMPLES; i++) {
      const answer = await fetch(`${live.url}/v1/store/orders/${700_000_001 + i}`, { method: 'DELETE', headers: auth(latencyStore.key) });
      await answer.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const idleStarted = performance.now();
    while ((await received('latency/idle')).n < SAMPLES && performance.now() - idleStarted < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const idle = await received('latency/idle');
    rows.push({
      scenario: 'webhook latency, idle server, SQLite: one cancel at a time, commit to receipt',
      p50: idle.p50 ?? NaN,
      p99: idle.p99 ?? NaN,
      note: `${idle.n} of ${SAMPLES} cancels received; targets p50 ≤ 20 ms, p99 ≤ 100 ms`,
    });

    // The same while another store has 1,000 deliveries queued to an endpoint that answers after 10 s, and wrk lists at full speed.
    await subscribe(live, slowStore.key, 'slow/tenant', ['order.created']);
    cli(env, ['orders', 'import', '--account', slowStore.id, importFile('h-slow.ndjson', ndjson(1_000, 800_000_001))]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await subscribe(live, latencyStore.key, 'latency/loaded', ['order.cancelled']);
    const trickleCount = Math.floor((DURATION_S * 1000) / 50);
    const trickle = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'cancel-trickle.ts'), live.url, latencyStore.key, String(700_000_001 + SAMPLES + 10), String(trickleCount), '40'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(trickle);
    const trickled = new Promise<string>((resolve) => {
      let out = '';
      trickle.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      trickle.on('exit', () => resolve(out.trim()));
    });
    const listing = await load(`${live.url}/v1/store/orders`, { connections: 64, headers: auth(listAccount.key), warmUp: false, pid: live.pid });
    const answered = await trickled;
    const loadedStarted = performance.now();
    while ((await received('latency/loaded')).n < Number(answered) && performance.now() - loadedStarted < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const loaded = await received('latency/loaded');
    const slowSeen = await received('slow/tenant');
    rows.push({
      scenario: 'webhook latency, healthy endpoint, while another store has 1,000 deliveries queued to an endpoint answering after 10 s and wrk lists orders at 64 clients',
      p50: loaded.p50 ?? NaN,
      p99: loaded.p99 ?? NaN,
      note: `${loaded.n} of ${answered} cancels received; target p99 ≤ 250 ms; listing meanwhile ${Math.round(listing.rps).toLocaleString('en-US')} req/s (p99 ${listing.p99.toFixed(1)} ms); the slow endpoint had received ${slowSeen.n}`,
    });
    await live.stop();
    await receiver.stop();
  }

  if (!args.includes('--no-postgres') && (runs('list') || runs('cancel') || runs('import') || runs('webhooks'))) {
    let embedded: EmbeddedServer | undefined;
    try {
      let postgresUrl = process.env.BENCH_POSTGRES_URL ?? '';
      if (postgresUrl === '') {
        embedded = await startEmbeddedPostgres({ durable: true });
        postgresUrl = embedded.url;
      }
      await postgresRows(postgresUrl, embedded?.dataDir);
    } catch (error) {
      rows.push({ scenario: 'PostgreSQL rows', note: `not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` });
    } finally {
      await embedded?.destroy();
    }
  }

  async function postgresRows(postgresUrl: string, dataDir: string | undefined): Promise<void> {
    const pgEnv = { DATABASE_URL: postgresUrl };
    cli(pgEnv, ['migrate']);
    if (runs('import')) {
      const importAccount = JSON.parse(cli(pgEnv, ['accounts', 'create', '--name', 'bench-pg-import', '--json'])) as { id: number };
      rows.push(importRow(`${BIG_ORDERS.toLocaleString('en-US')} orders without ids, PostgreSQL`, timedImport(pgEnv, importAccount.id, noIdsFile())));
    }
    if (runs('webhooks')) await crossProcessRow(pgEnv);
    if (!runs('list') && !runs('cancel')) return;
    const account = JSON.parse(cli(pgEnv, ['accounts', 'create', '--name', 'bench-pg', '--json'])) as { id: number };
    const key = (JSON.parse(cli(pgEnv, ['keys', 'create', '--account', String(account.id), '--json'])) as { key: string }).key;
    cli(pgEnv, ['orders', 'import', '--account', String(account.id), path.join(work, 'list.ndjson')]);
    const pg = await startOurs(pgEnv);
    if (baseline !== undefined) {
      resetPeak(pg.pid);
      rows.push(pairedRow('GET /v1/store/orders, 100 orders, PostgreSQL, 1 process', await against(pg, `${pg.url}/v1/store/orders`, auth(key)), pg.pid));
      // The database on the client's core: the server's core is then its own, as the
      // baseline's is and as it is with the database on another host. Not in --quick.
      if (!QUICK && PIN && dataDir !== undefined) {
        pinPostgres(dataDir, CLIENT_CORE);
        resetPeak(pg.pid);
        rows.push(pairedRow('GET /v1/store/orders, 100 orders, PostgreSQL pinned to the client core, 1 process', await against(pg, `${pg.url}/v1/store/orders`, auth(key)), pg.pid));
        pinPostgres(dataDir, `0-${cpus().length - 1}`);
      }
    }
    if (runs('cancel')) {
      const cancelAccountPg = JSON.parse(cli(pgEnv, ['accounts', 'create', '--name', 'bench-pg-cancel', '--json'])) as { id: number };
      const cancelKey = (JSON.parse(cli(pgEnv, ['keys', 'create', '--account', String(cancelAccountPg.id), '--json'])) as { key: string }).key;
      cli(pgEnv, ['orders', 'import', '--account', String(cancelAccountPg.id), path.join(work, 'c1.ndjson')]);
      // PostgreSQL cancels fewer per second: --quick seeds it only what two seconds can use.
      const c64 = QUICK ? importFile('pg-c64.ndjson', ndjson(30_000, 200_000_001)) : path.join(work, 'c64.ndjson');
      cli(pgEnv, ['orders', 'import', '--account', String(cancelAccountPg.id), c64]);
      await cancels(pg, cancelKey, 'PostgreSQL');
    }
    await pg.stop();
  }

  /**
   * Webhook latency across processes on PostgreSQL: the CLI ships orders one
   * at a time (each its own process, committing through its own pool) while a
   * server's engine delivers them, told by LISTEN/NOTIFY.
   */
  async function crossProcessRow(pgEnv: Record<string, string>): Promise<void> {
    const receiver = await start(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'webhook-receiver.ts')], {}, CLIENT_CORE);
    const account = JSON.parse(cli(pgEnv, ['accounts', 'create', '--name', 'bench-pg-hooks', '--json'])) as { id: number };
    const key = (JSON.parse(cli(pgEnv, ['keys', 'create', '--account', String(account.id), '--json'])) as { key: string }).key;
    const SHIPS = QUICK ? 10 : 40;
    cli(pgEnv, ['orders', 'import', '--account', String(account.id), importFile('pg-ship.ndjson', ndjson(SHIPS, 990_000_001))]);
    const server = await startOurs({ ...pgEnv, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
    const created = await fetch(`${server.url}/v2/webhook-endpoints`, {
      method: 'POST',
      headers: { ...auth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/pg/cross`, eventTypes: ['order.shipped'] }),
    });
    if (created.status !== 201) throw new Error(`creating a webhook endpoint answered ${created.status}: ${await created.text()}`);
    for (let i = 0; i < SHIPS; i++) cli(pgEnv, ['orders', 'ship', String(990_000_001 + i)]);
    const count = async () => (await (await fetch(`${receiver.url}/count?path=/pg/cross`)).json()) as { n: number; p50: number | null; p99: number | null };
    const waited = performance.now();
    while ((await count()).n < SHIPS && performance.now() - waited < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const seen = await count();
    rows.push({
      scenario: 'webhook latency across processes, PostgreSQL: the CLI ships an order, a server delivers it (LISTEN/NOTIFY)',
      p50: seen.p50 ?? NaN,
      p99: seen.p99 ?? NaN,
      note: `${seen.n} of ${SHIPS} received; target p99 ≤ 300 ms`,
    });
    await server.stop();
    await receiver.stop();
  }

  await baseline?.stop();
  printTable(info);
}

/** The rows measured so far as one Markdown table, after the machine's description. */
function printTable(info: string): void {
  const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  const table = [
    '| scenario | req/s | p50 ms | p99 ms | server CPU µs/req | peak RSS MB | × baseline | notes |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.scenario} | ${fmt(r.rps)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.cpuUs, 1)} | ${fmt(r.rssMb)} | ${fmt(r.ratio, 2)} | ${r.note ?? ''} |`),
  ];
  process.stdout.write(`\n${info}\n\n${table.join('\n')}\n`);
}

/** A configuration of our server compared with the others in the same rounds. */
interface Variant {
  name: string;
  server: Server;
}

/** Per variant: each round's load, run in turn with the others, the order rotating each round. */
async function interleaved(variants: Variant[], run: (variant: Variant, round: number) => Promise<Load>, rounds = ROUNDS): Promise<Map<string, Load[]>> {
  const loads = new Map<string, Load[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + round) % variants.length];
      if (variant !== undefined) loads.get(variant.name)?.push(await run(variant, round));
    }
  }
  return loads;
}

/**
 * Per variant: each round's load, every variant loaded at the same time (a
 * client each). The servers share the server core, so that the machine's
 * drift, which spreads interleaved rounds' ratios by 0.2 and more, falls on
 * all of them in the very same seconds: their CPU per request, compared
 * round by round, differs by what each server does.
 */
async function sideBySide(variants: Variant[], run: (variant: Variant, round: number) => Promise<Load>, rounds = ROUNDS): Promise<Map<string, Load[]>> {
  const loads = new Map<string, Load[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    const results = await Promise.all(variants.map((variant) => run(variant, round)));
    results.forEach((result, i) => loads.get(variants[i]?.name ?? '')?.push(result));
  }
  return loads;
}

/**
 * Issue 20: what metrics and tracing cost. The same server four ways on one
 * database: both off (METRICS_PORT=off, no OTEL variable), metrics on (the
 * default), tracing on (spans exported to an OTLP/HTTP sink in this
 * process, metrics off, the default sampling) and tracing on with no new
 * trace sampled (what a sampled-out request costs; issue 29), measured in interleaved rounds (the order rotating)
 * so that the machine's drift falls on each alike; each row's ratio is the
 * median of its per-round ratios to the "both off" run of the same round.
 */
async function observabilityRows(env: Record<string, string>, listKey: string): Promise<void> {
  const sink = http.createServer((req, res) => {
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;
  const variants: Variant[] = [
    { name: 'both off', server: await startOurs({ ...env, METRICS_PORT: 'off' }) },
    { name: 'metrics on (default)', server: await startOurs({ ...env, METRICS_PORT: '0' }) },
    { name: 'tracing on (default sampling: 1 new trace in 10)', server: await startOurs({ ...env, METRICS_PORT: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl }) },
    // What a request that is not sampled still costs.
    { name: 'tracing on, no new trace sampled', server: await startOurs({ ...env, METRICS_PORT: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER_ARG: '0' }) },
  ];
  const auth = { authorization: `Bearer ${listKey}` };
  const block = QUICK ? 40_000 : 100_000;
  const account = JSON.parse(cli(env, ['accounts', 'create', '--name', 'bench-observability', '--json'])) as { id: number };
  const cancelKey = (JSON.parse(cli(env, ['keys', 'create', '--account', String(account.id), '--json'])) as { key: string }).key;
  // One block of pending orders per variant and round: a cancel run cannot be repeated on the same orders.
  const firstId = (variant: number, round: number) => 500_000_001 + (variant * ROUNDS + round) * block;
  const orders = path.join(work, 'observability.ndjson');
  for (let v = 0; v < variants.length; v++) {
    for (let round = 0; round < ROUNDS; round++) {
      writeFileSync(orders, ndjson(block, firstId(v, round)));
      cli(env, ['orders', 'import', '--account', String(account.id), orders]);
    }
  }
  for (const { server } of variants) await load(`${server.url}/v1/store/orders`, { connections: 50, headers: auth, seconds: WARMUP_S, warmUp: false });

  const report = (what: string, loads: Map<string, Load[]>) => interleavedRows(`${what}, SQLite`, variants, loads, 'both off');
  const variantIndex = (variant: Variant) => variants.indexOf(variant);
  report(
    'GET /v1/store/orders, 100 orders',
    await interleaved(variants, (v) => load(`${v.server.url}/v1/store/orders`, { connections: 50, headers: auth, seconds: ROUND_S, warmUp: false, pid: v.server.pid })),
  );
  const cancelScript = path.join(work, 'cancel.lua');
  report(
    'DELETE cancel, durable, 64 clients',
    await interleaved(variants, (v, round) =>
      load(`${v.server.url}/`, { connections: 64, headers: { authorization: `Bearer ${cancelKey}` }, script: cancelScript, scriptArgs: [String(firstId(variantIndex(v), round) - 1)], seconds: ROUND_S, pid: v.server.pid }),
    ),
  );
  for (const { server } of variants) await server.stop();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
}

/**
 * One row per variant measured in interleaved rounds: medians of its rounds,
 * and its ratio to the `reference` variant as the median of the per-round
 * ratios (each round's pair ran back to back).
 */
function interleavedRows(what: string, variants: Variant[], loads: Map<string, Load[]>, reference: string, target = ''): void {
  const off = loads.get(reference) ?? [];
  for (const { name, server } of variants) {
    const mine = loads.get(name) ?? [];
    const ratios = mine.map((l, i) => l.rps / (off[i]?.rps ?? NaN));
    const cpu = median(mine.map((l) => l.cpuUs ?? NaN));
    const non2xx = mine.reduce((sum, l) => sum + l.non2xx, 0);
    rows.push({
      scenario: `${what}, ${name}`,
      rps: median(mine.map((l) => l.rps)),
      p50: median(mine.map((l) => l.p50)),
      p99: median(mine.map((l) => l.p99)),
      cpuUs: cpu,
      rssMb: peakMb(server.pid),
      ratio: median(ratios),
      note:
        `× ${reference} in the same rounds: ${ratios.map((r) => r.toFixed(2)).join('/')}${target}; ` +
        `CPU per request ${(median(off.map((l) => l.cpuUs ?? NaN)) / cpu).toFixed(2)}× ${reference}'s${non2xx > 0 ? `, ${non2xx} non-2xx` : ''}`,
    });
  }
}

/**
 * Issue 28: what the request logs cost on the cached v1 listing (the fast
 * lane), target ≤ 3 %. The same server twice on one database, REQUEST_LOGS
 * off and on (the default), measured in interleaved rounds (the order
 * rotating) so that the machine's drift falls on both alike; the "on" row's
 * ratio is the median of its per-round ratios to the "off" run of the same
 * round (≥ 0.97 meets the target). With logs on, every answered request is
 * captured and written in batches, each second, to the same database.
 */
async function requestLogsRows(env: Record<string, string>, listKey: string): Promise<void> {
  const variants: Variant[] = [
    { name: 'request logs off', server: await startOurs({ ...env, REQUEST_LOGS: 'off' }) },
    { name: 'request logs on (default)', server: await startOurs({ ...env, REQUEST_LOGS: 'on' }) },
  ];
  const auth = { authorization: `Bearer ${listKey}` };
  for (const { server } of variants) await load(`${server.url}/v1/store/orders`, { connections: 50, headers: auth, seconds: WARMUP_S, warmUp: false });
  const loads = await interleaved(
    variants,
    (v) => load(`${v.server.url}/v1/store/orders`, { connections: 50, headers: auth, seconds: ROUND_S, warmUp: false, pid: v.server.pid }),
    REQUEST_LOG_ROUNDS,
  );
  interleavedRows('GET /v1/store/orders, 100 orders (cached, fast lane), SQLite', variants, loads, 'request logs off', ' (target ≥ 0.97, issue 28)');
  const [off, on] = variants as [Variant, Variant];
  const together = await sideBySide(variants, (v) => load(`${v.server.url}/v1/store/orders`, { connections: 50, headers: auth, seconds: SIDE_BY_SIDE_S, warmUp: false, pid: v.server.pid }), REQUEST_LOG_ROUNDS);
  const offLoads = together.get(off.name) ?? [];
  const onLoads = together.get(on.name) ?? [];
  const costs = onLoads.map((l, i) => (l.cpuUs ?? NaN) / (offLoads[i]?.cpuUs ?? NaN));
  rows.push({
    scenario: `GET /v1/store/orders, 100 orders (cached, fast lane), SQLite, request logs on, side by side with off`,
    rps: median(onLoads.map((l) => l.rps)),
    p50: median(onLoads.map((l) => l.p50)),
    p99: median(onLoads.map((l) => l.p99)),
    cpuUs: median(onLoads.map((l) => l.cpuUs ?? NaN)),
    rssMb: peakMb(on.server.pid),
    ratio: 1 / median(costs),
    note:
      `both servers loaded at once on the server core, ${REQUEST_LOG_ROUNDS} rounds of ${SIDE_BY_SIDE_S} s: CPU per request on ÷ off ${costs.map((r) => r.toFixed(3)).join('/')}, ` +
      `median ${median(costs).toFixed(3)} (a cost of at most 3 % is ≤ 1.030, issue 28); off meanwhile ${Math.round(median(offLoads.map((l) => l.rps)))} req/s, ${median(offLoads.map((l) => l.cpuUs ?? NaN)).toFixed(1)} µs`,
  });
  for (const { server } of variants) await server.stop();
}

await main();
