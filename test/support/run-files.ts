/**
 * The runner process of test/run.ts: node:test's `run()` over the files in
 * the order given (the `--test` command line sorts them by name, which
 * started the longest files last and left one core idle at the end of every
 * run), with the spec reporter on stdout and each file's time (below) into a
 * file. Exits 1 when any test failed.
 *
 *   node --import tsx test/support/run-files.ts <concurrency> <times file> <files…>
 */
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const [concurrency, timesFile, ...files] = process.argv.slice(2);
const stream = run({ files, concurrency: Number(concurrency) });
const toSpec = new PassThrough({ objectMode: true });
const toTimes = new PassThrough({ objectMode: true });
stream.on('data', (event: { type: string; data: { todo?: unknown; skip?: unknown } }) => {
  if (event.type === 'test:fail' && event.data.todo === undefined) process.exitCode = 1;
  toSpec.write(event);
  toTimes.write(event);
});
stream.on('end', () => {
  toSpec.end();
  toTimes.end();
});
toSpec.compose(new spec()).pipe(process.stdout);
toTimes.compose(fileTimes).pipe(createWriteStream(String(timesFile)));

interface TestEvent {
  type: string;
  data: { name: string; nesting: number; file?: string; details?: { duration_ms?: number } };
}

/**
 * A reporter writing one JSON line per test file: its path and how long it
 * took. Under `run()` the file's tests are reported directly (on Node 20 as
 * on 24), so its time is the sum of its top-level tests and suites: its
 * imports and start-up are not counted.
 */
async function* fileTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const summed = new Map<string, number>();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || event.data.file === undefined) continue;
    summed.set(event.data.file, (summed.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  for (const [file, ms] of summed) yield `${JSON.stringify({ file, ms: Math.round(ms) })}\n`;
}
