/*
 * node --import tsx bench/profile-stages.ts [--304] [--reference fastify-headers|bytes-headers|bytes] [--seconds 20] [--bin <bin/store-orders>] [--stage <text>]
 *
 * What each microsecond of the cached v1 listing pays for (BENCHMARKS.md, tenth session). Run
 * `npm run build` first. Seeds a SQLite database as bench/bench.ts does (100 orders), starts the
 * built server as the bench starts it (logs at the default level to a file, request logs and
 * metrics on, the settled heap) under `node --cpu-prof`, or with --reference one of the bench's
 * reference servers sending the same bytes and headers, pinned to core 0; drives it from core 1
 * with wrk at 50 connections (5 s unmeasured, then --seconds measured); and prints the profile of
 * the measured seconds by stage, per request, beside the server's CPU per request (/proc).
 *
 * A sample belongs to the stage of the innermost frame of its stack that names one (the key check
 * for SHA-256 called from checkApiKey, the log line for a write called from pino), so that Node's
 * and the libraries' functions count for whoever called them. The profiler samples wall time: a
 * system call that blocks (a write to a busy disk, SQLite's fsync) counts while it blocks.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startListening, type ListeningChild } from './listening-child.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const NOT_MODIFIED = args.includes('--304');
const REFERENCE = option('--reference');
const SECONDS = Number(option('--seconds') ?? 20);
/** --stage <text>: also the functions (self time) of the stages whose name holds the text. */
const STAGE = option('--stage');
const BIN = path.resolve(option('--bin') ?? path.join(ROOT, 'bin', 'store-orders'));
const SETTLED = ['--expose-gc', '--import', pathToFileURL(path.join(ROOT, 'bench', 'settled-heap.mjs')).href];
const work = mkdtempSync(path.join(tmpdir(), 'store-orders-profile-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

// ---------- seeding and serving, as bench/bench.ts does ----------

const env = { DATABASE_URL: `sqlite:${path.join(work, 'bench.db')}` };
const cli = (argv: string[]) => execFileSync(process.execPath, [BIN, ...argv], { env: { ...process.env, ...env } }).toString();
const lines = Array.from({ length: 100 }, (_, i) =>
  `{"id":${9_007_199_254_740_000 + i},"petId":${i === 0 ? '9007199254740993' : String(1_000_000 + i)},"quantity":${1 + (i % 5)},"shipDate":"2026-12-0${1 + (i % 9)}T10:00:00Z","complete":${i % 2 === 0}}`,
);
cli(['migrate']);
const account = (JSON.parse(cli(['accounts', 'create', '--name', 'profile', '--json'])) as { id: number }).id;
const key = (JSON.parse(cli(['keys', 'create', '--account', String(account), '--json'])) as { key: string }).key;
writeFileSync(path.join(work, 'list.ndjson'), `${lines.join('\n')}\n`);
cli(['orders', 'import', '--account', String(account), path.join(work, 'list.ndjson')]);

type Server = ListeningChild;

function start(nodeArgs: string[], extraEnv: Record<string, string>): Promise<Server> {
  return startListening('taskset', ['-c', '0', process.execPath, ...nodeArgs], extraEnv, children, path.join(work, `server-${children.length}.log`));
}

const ours = (flags: string[] = []) =>
  start([...SETTLED, ...flags, BIN, 'serve'], { ...env, PORT: '0', HOST: '127.0.0.1', QUICKSTART_PORT: 'off', PORTAL_PORT: 'off', METRICS_PORT: '0', RATE_LIMIT_REQUESTS: '1000000000' });

const wrk = (url: string, seconds: number, headers: Record<string, string>): number => {
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', '-c50', `-d${seconds}s`, ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url]).toString();
  if (/Non-2xx/.test(out)) throw new Error(`answers other than 200/304:\n${out}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
};

const TICK_US = 1e6 / (Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100);
/** The server's CPU time so far (utime + stime), µs. */
const cpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
};

// The listing's bytes, headers and ETag, from our server (the references send the same).
const plain = await ours();
const auth = { authorization: `Bearer ${key}` };
const first = await fetch(`${plain.url}/v1/store/orders`, { headers: auth });
const body = Buffer.from(await first.arrayBuffer());
const sent = Object.fromEntries([...first.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(name)));
await plain.stop();
writeFileSync(path.join(work, 'body.json'), body);
writeFileSync(path.join(work, 'headers.json'), JSON.stringify(sent));
const requestHeaders = { ...auth, ...(NOT_MODIFIED ? { 'if-none-match': sent.etag ?? '' } : {}) };

const profiles = path.join(work, 'profiles');
const profiling = ['--cpu-prof', `--cpu-prof-dir=${profiles}`];
const server =
  REFERENCE === undefined
    ? await ours(profiling)
    : await start([...SETTLED, ...profiling, '--import', 'tsx', path.join(ROOT, 'bench', 'baseline-server.ts'), REFERENCE, path.join(work, 'body.json'), path.join(work, 'headers.json')], {});
const target = REFERENCE === undefined ? `${server.url}/v1/store/orders` : `${server.url}/`;
wrk(target, 5, requestHeaders);
const cpuBefore = cpuUs(server.pid);
const from = process.hrtime.bigint();
const rps = wrk(target, SECONDS, requestHeaders);
const to = process.hrtime.bigint();
const cpuPerRequest = (cpuUs(server.pid) - cpuBefore) / (rps * SECONDS);
await server.stop();

// ---------- the profile of the measured seconds ----------

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

// The main thread's profile is the largest (tsx's loader thread writes one too).
const file = readdirSync(profiles)
  .map((name) => path.join(profiles, name))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
if (file === undefined) throw new Error('no profile written');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const fn = (n: ProfileNode) => n.callFrame.functionName;
const url = (n: ProfileNode) => n.callFrame.url;
const ourFile = (n: ProfileNode, file: string) => url(n).includes(`/dist/${file}`);
const dependency = (n: ProfileNode, ...names: string[]) => names.some((name) => url(n).includes(`node_modules/${name}`));
const nodeFunction = (n: ProfileNode, module: string, names: RegExp) => url(n) === module && names.test(fn(n));

/** In order: the first that names a frame is its stage. */
const STAGES: [string, (n: ProfileNode) => boolean][] = [
  ['GC', (n) => fn(n) === '(garbage collector)'],
  ['native code outside JavaScript ((program))', (n) => fn(n) === '(program)'],
  ['request-log entry', (n) => ourFile(n, 'request-logs/') || ourFile(n, 'usage/') || ourFile(n, 'http/request-log-capture.js') || ourFile(n, 'storage/sqlite/sqlite-request-log') || ourFile(n, 'storage/sqlite/sqlite-usage')],
  ['process log line', (n) => ourFile(n, 'http/logging.js') || dependency(n, 'pino', 'sonic-boom', '@pinojs', 'fast-redact', 'safe-stable-stringify', 'quick-format-unescaped')],
  ['metrics', (n) => ourFile(n, 'observability/') || dependency(n, 'prom-client')],
  // redactApiKeys and looksLikeApiKey serve the log line's URL and the request id: their caller's stage.
  ['key check (Bearer, checksum, SHA-256, key cache, expiry, scope)', (n) => ourFile(n, 'api/http/authentication.js') || (ourFile(n, 'api-keys/') && !ourFile(n, 'api-keys/api-key-usage.js') && !/^(redactApiKeys|looksLikeApiKey)$/.test(fn(n)))],
  ['last-used time', (n) => ourFile(n, 'api-keys/api-key-usage.js')],
  ['rate limit', (n) => ourFile(n, 'http/protection/rate-limit.js')],
  ['version read (batched SQLite read)', (n) => ourFile(n, 'shared/batcher.js') || ourFile(n, 'orders/listing/version-reads.js') || ourFile(n, 'orders/v1/orders-service.js') || ourFile(n, 'storage/sqlite/sqlite-orders-repository.js')],
  ['background work (delivery engines, periodic flushes)', (n) => ['delivery/', 'webhooks/', 'messages/', 'mail/', 'shared/periodic-flush.js', 'storage/sqlite/', 'background-work.js'].some((f) => ourFile(n, f))],
  ['listing cache lookup', (n) => ourFile(n, 'orders/listing/') || ourFile(n, 'shared/lru.js')],
  ['request id', (n) => ourFile(n, 'http/request-id.js')],
  ['validator, If-None-Match', (n) => ourFile(n, 'api/http/conditional-get.js')],
  ['clock reads (Date)', (n) => ourFile(n, 'shared/clock.js')],
  ['headers (writeHead: validation, header block)', (n) => nodeFunction(n, 'node:_http_outgoing', /^(_storeHeader|processHeader|storeHeader|matchHeader)$/) || nodeFunction(n, 'node:_http_server', /^writeHead$/) || /^(checkInvalidHeaderChar|checkIsHttpToken)$/.test(fn(n))],
  ['writing the response', (n) => nodeFunction(n, 'node:_http_outgoing', /^(end|write|_send|_writeRaw|write_)$/)],
  ['response done (finish, request dump, socket reuse)', (n) => nodeFunction(n, 'node:_http_server', /^(resOnFinish|onFinish|clearIncoming|emitCloseNT|detachSocket)$/) || nodeFunction(n, 'node:_http_outgoing', /^(onFinish|emitCloseNT)$/)],
  ['accept and parse (node:http)', (n) => ['node:_http_common', 'node:_http_incoming'].includes(url(n)) || nodeFunction(n, 'node:_http_server', /^(parserOnIncoming|connectionListener|connectionListenerInternal|socketOnData|onParserExecute|onParserExecuteCommon|ServerResponse)$/)],
  ['fast-lane routing, promises', (n) => ['http/fast-lane.js', 'http/http-app.js', 'http/protection/', 'http/media-types.js'].some((f) => ourFile(n, f))],
  ['Fastify routing, hooks, reply', (n) => dependency(n, 'fastify', 'find-my-way', 'avvio', '@fastify', 'light-my-request')],
];

/** Rows split by the sampled frame itself: system calls and SQLite apart from the JavaScript around them. */
function refine(stage: string, leaf: ProfileNode): string {
  const name = fn(leaf);
  if (name === 'nextTick' && url(leaf) === 'node:internal/process/task_queues') return 'process.nextTick itself (its inline caches)';
  if (stage === 'process log line') return /^(writeString|writeSync|writeBuffer)$/.test(name) ? 'process log line: write(2) to the log file' : 'process log line: serializers, redaction, JSON';
  if (stage === 'request-log entry') {
    if (name === 'sqliteTransaction') return 'request-log entry: SQLite commit (with its fsync)';
    if (ourFile(leaf, 'storage/') || dependency(leaf, 'better-sqlite3')) return 'request-log entry: SQLite inserts';
    if (name === 'capture' || name === 'clientAddress' || url(leaf) === 'node:net') return 'request-log entry: capture';
    return 'request-log entry: stored form, usage counts';
  }
  if (stage === 'writing the response') return /^(writev|writeBuffer|writeLatin1String|writeUtf8String|writeString)$/.test(name) ? 'writing the response: the writev system call' : 'writing the response: node:http, streams';
  return stage;
}

const stages = new Map<number, string>();
function stageOf(id: number): string {
  let stage = stages.get(id);
  if (stage !== undefined) return stage;
  stage = 'other (Node internals: ticks, microtasks, streams)';
  // Issuing a request id (request-logs/request-id-words.js) is paid whether or not requests are logged: the request id's, with all it calls.
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = nodes.get(at);
    if (node !== undefined && fn(node) === 'newRequestUuid') {
      stages.set(id, 'request id');
      return 'request id';
    }
  }
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = nodes.get(at);
    const caller = nodes.get(parent.get(at) ?? -1);
    if (node === undefined) break;
    // The lane's res.once registers the log line's 'finish' listener.
    if (caller !== undefined && ourFile(caller, 'http/fast-lane.js') && fn(caller) === 'answer' && url(node) === 'node:events') {
      stage = 'process log line';
      break;
    }
    const named = STAGES.find(([, test]) => test(node));
    if (named !== undefined) {
      stage = named[0];
      break;
    }
  }
  const leaf = nodes.get(id);
  stage = leaf === undefined ? stage : refine(stage, leaf);
  stages.set(id, stage);
  return stage;
}

// The measured seconds, less 0.3 s at each end; each sample weighs the time to the next.
const windowStart = Number(from / 1000n) + 300_000;
const windowEnd = Number(to / 1000n) - 300_000;
const requests = rps * SECONDS * ((windowEnd - windowStart) / (SECONDS * 1e6));
const byStage = new Map<string, number>();
const bySelf = new Map<string, number>();
const inStage = new Map<string, number>();
let busy = 0;
let time = profile.startTime;
profile.samples.forEach((id, i) => {
  time += profile.timeDeltas[i] ?? 0;
  const weight = profile.timeDeltas[i + 1] ?? 0;
  const node = nodes.get(id);
  if (time < windowStart || time >= windowEnd || node === undefined || fn(node) === '(idle)') return;
  busy += weight;
  const stage = stageOf(id);
  byStage.set(stage, (byStage.get(stage) ?? 0) + weight);
  const self = `${fn(node) || '(anonymous)'} ${url(node).replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}:${node.callFrame.lineNumber + 1}`;
  bySelf.set(self, (bySelf.get(self) ?? 0) + weight);
  if (STAGE !== undefined && stage.includes(STAGE)) inStage.set(`${self} (${stage})`, (inStage.get(`${self} (${stage})`) ?? 0) + weight);
});

const perRequest = (us: number) => (us / requests).toFixed(2).padStart(6);
const rows = (map: Map<string, number>, limit: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => `| ${name} | ${perRequest(us)} | ${((100 * us) / busy).toFixed(1)} % |`)
    .join('\n');
const what = `${REFERENCE === undefined ? 'our server (bin/store-orders serve)' : `reference server "${REFERENCE}"`}, ${NOT_MODIFIED ? '304 (If-None-Match current)' : '200'}`;
process.stdout.write(`${what}: ${Math.round(rps).toLocaleString('en-US')} req/s, CPU ${cpuPerRequest.toFixed(1)} µs per request (/proc), profiled busy time ${perRequest(busy).trim()} µs per request\n\n`);
process.stdout.write(`| stage | µs per request | share |\n|---|---:|---:|\n${rows(byStage, 40)}\n\n| function (self time) | µs per request | share |\n|---|---:|---:|\n${rows(bySelf, 25)}\n`);
if (STAGE !== undefined) process.stdout.write(`\n| function (self time) in the stages "${STAGE}" | µs per request | share |\n|---|---:|---:|\n${rows(inStage, 40)}\n`);
