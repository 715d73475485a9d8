/**
 * A node:test reporter (test/run.ts adds it beside the spec reporter) that
 * writes one JSON line per test file: its path and how long it took. Node 20
 * reports each file as a test of its own named by its path, whose duration
 * is the file's process from start to exit; Node 22 and later report the
 * file's tests directly, so there the file's time is the sum of its
 * top-level tests and suites (its imports and start-up not counted).
 * Plain JavaScript: the runner loads reporters before tsx is in place.
 */

/**
 * @param {AsyncIterable<{ type: string, data: { name: string, nesting: number, file?: string, details?: { duration_ms?: number } } }>} source
 * @returns {AsyncGenerator<string>}
 */
// eslint-disable-next-line no-restricted-syntax -- node:test loads a reporter module's default export
export default async function* fileTimes(source) {
  const wrapper = new Map();
  const summed = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || event.data.file === undefined) continue;
    const { file, name, details } = event.data;
    const ms = details?.duration_ms ?? 0;
    if (name === file) wrapper.set(file, ms);
    else summed.set(file, (summed.get(file) ?? 0) + ms);
  }
  for (const file of new Set([...wrapper.keys(), ...summed.keys()])) {
    yield `${JSON.stringify({ file, ms: Math.round(wrapper.get(file) ?? summed.get(file) ?? 0) })}\n`;
  }
}
