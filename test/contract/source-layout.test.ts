import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * What ARCHITECTURE.md promises of src/ that the linter cannot see:
 * ESLint's no-cycle skips type-only imports, so cycles are looked for here
 * over every relative import, `import type` included; and files stay small
 * enough to read, generated code aside.
 */

const SRC = path.join(import.meta.dirname, '../../src');
/**
 * Generated code is exempt from the size bound; today none lives in src/ (the
 * client's generated types are in packages/client/src/).
 */
const GENERATED = new Set<string>([]);
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative module a file imports or re-exports, types included, as absolute .ts paths. */
function relativeImports(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)];
  return specifiers
    .map((match) => match[1] ?? match[2])
    .filter((specifier): specifier is string => specifier !== undefined)
    .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan's algorithm. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('when src/ is read as an import graph (type imports included), then it has no cycle', () => {
  const graph = new Map(sourceFiles(SRC).map((file) => [file, relativeImports(file, readFileSync(file, 'utf8'))]));
  assert.ok(graph.size > 50, `expected the whole of src/, found ${graph.size} files`);
  const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
  assert.ok(edges > graph.size, `expected the imports of src/ to be read, found ${edges}`);
  const found = cycles(graph).map((component) => component.map((file) => path.relative(SRC, file)).sort());
  assert.deepEqual(found, [], `import cycles in src/: ${JSON.stringify(found)}`);
});

test('when the cycle finder is given a cycle through a type-only import, then it reports it', () => {
  const graph = new Map([
    ['/a.ts', relativeImports('/a.ts', "import { b } from './b.js';")],
    ['/b.ts', relativeImports('/b.ts', "import type { A } from './a.js';\nexport type { C } from './c.js';")],
    ['/c.ts', []],
  ]);
  assert.deepEqual(cycles(graph).map((component) => component.sort()), [['/a.ts', '/b.ts']]);
});

test('when any file in src/ but generated code is counted, then none is over 300 lines', () => {
  const tooLong = sourceFiles(SRC)
    .map((file) => ({ file: path.relative(SRC, file).split(path.sep).join('/'), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ file, lines }) => lines > MAX_LINES && !GENERATED.has(file));
  assert.deepEqual(tooLong, []);
});

test('when a service, a repository or a storage adapter imports what its layer may not, then npm run check (ESLint) refuses it', async () => {
  const { ESLint } = await import('eslint');
  const eslint = new ESLint({ cwd: path.join(SRC, '..') });
  const refused = async (filePath: string, code: string): Promise<string[]> => {
    const [result] = await eslint.lintText(code, { filePath: path.join(SRC, filePath) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'import-x/no-restricted-paths').map((m) => m.message);
  };
  const cases: [string, string][] = [
    ['orders/v1/example-service.ts', "import { JSON_CONTENT_TYPE } from '../../http/media-types.js';\nexport const x = JSON_CONTENT_TYPE;\n"],
    ['accounts/example-repository.ts', "import { openStorage } from '../storage/open-storage.js';\nexport const x = openStorage;\n"],
    ['pets/pets-example.ts', "import type { Container } from '../composition.js';\nexport type X = Container;\n"],
    ['storage/sqlite/example.ts', "import { sendError } from '../../http/error-handler.js';\nexport const x = sendError;\n"],
    ['http/example.ts', "import { openStorage } from '../storage/open-storage.js';\nexport const x = openStorage;\n"],
  ];
  for (const [file, code] of cases) assert.equal((await refused(file, code)).length, 1, `${file} must be refused`);
  // The routes of a capability are the HTTP edge: they may use the HTTP layer.
  assert.deepEqual(await refused('orders/v1/example-routes.ts', "import { JSON_CONTENT_TYPE } from '../../http/media-types.js';\nexport const x = JSON_CONTENT_TYPE;\n"), []);
});
