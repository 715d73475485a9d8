import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';

const MODULE = pathToFileURL(new URL('../../src/shared/tick-shapes.ts', import.meta.url).pathname).href;

/**
 * A child process (V8's state is process-wide, so never this one) that runs
 * nextTick, then full collections while none is queued (what a serving
 * process meets when it idles), and prints nextTick's inline caches
 * (%DebugPrint of the function shows each one's state). It prints through
 * C's stdio, which loses output to a pipe when the process exits: to a file.
 */
async function nextTickCachesAfterIdleCollections(t: TestContext, keep: boolean): Promise<string> {
  const script = `
    const { keepTickShapesAlive } = await import(${JSON.stringify(MODULE)});
    if (${String(keep)}) keepTickShapesAlive();
    const burst = () => { for (let i = 0; i < 200; i++) { process.nextTick(() => undefined); process.nextTick((a) => a, 1); } };
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    for (let round = 0; round < 8; round++) { burst(); await pause(); globalThis.gc(); await pause(); }
    new Function('f', '%DebugPrint(f)')(process.nextTick);
  `;
  const dir = mkdtempSync(path.join(tmpdir(), 'tick-shapes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'stdout');
  const out = openSync(file, 'w');
  const child = spawn(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0);
  return readFileSync(file, 'utf8');
}

const count = (text: string, word: string) => text.split(word).length - 1;

describe('nextTick shapes', () => {
  test('when full collections run while no nextTick is queued, then a process that kept the shapes keeps nextTick’s caches monomorphic', async (t) => {
    const lost = await nextTickCachesAfterIdleCollections(t, false);
    // The premise, on this Node: without the kept object the caches go megamorphic (BENCHMARKS.md, fourth session).
    if (count(lost, 'MEGAMORPHIC') === 0) {
      t.skip(`this Node keeps nextTick's caches monomorphic anyway (${count(lost, 'MONOMORPHIC')} monomorphic)`);
      return;
    }
    const kept = await nextTickCachesAfterIdleCollections(t, true);
    assert.ok(count(kept, 'MONOMORPHIC') > 0, 'the feedback of nextTick was printed');
    assert.equal(count(kept, 'MEGAMORPHIC'), 0, kept);
  });
});
