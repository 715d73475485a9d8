/**
 * `npm run test:inventory`: every test name in test/, grouped by the
 * capability (test/ mirrors src/: the folder under test/, with hosts/ and
 * contract/ one level deeper) and by tier, read from the source with
 * TypeScript's parser, so the list needs no database and runs in a second.
 * Names are printed as written: a template's `${…}` parts stay as they are,
 * so a behaviour run on several backends is one line. Before and after a
 * change to the suite, `diff` of two outputs shows what was added or lost.
 *
 *   npm run test:inventory > before.txt
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const TEST_CALLS = new Set(['test', 'it', 'describe', 'suite']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'support' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The literal text of a name argument: a string, or a template as written. */
function nameOf(node: ts.Node | undefined, source: ts.SourceFile): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.getText(source).slice(1, -1);
  return undefined;
}

/** Every test's full name in a file: enclosing describe names joined by " › ". */
function namesIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  const visit = (node: ts.Node, prefix: string[]) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const called = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) ? callee.expression.text : '';
      const name = TEST_CALLS.has(called) ? nameOf(node.arguments[0], source) : undefined;
      if (name !== undefined) {
        const full = [...prefix, name];
        if (called === 'test' || called === 'it') names.push(full.join(' › '));
        node.arguments.slice(1).forEach((argument) => visit(argument, full));
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, prefix));
  };
  visit(source, []);
  return names;
}

/** The capability a test file belongs to: its folder under test/ (two levels for hosts/ and contract/storage). */
function capabilityOf(relative: string): string {
  const parts = relative.split(path.sep).slice(0, -1);
  if (parts[0] === 'long') parts.shift();
  const depth = parts[0] === 'hosts' || parts[0] === 'contract' || parts[0] === 'storage' ? 2 : 1;
  return parts.slice(0, depth).join('/') || '(top)';
}

const byCapability = new Map<string, string[]>();
let total = 0;
for (const file of testFiles(path.join(root, 'test')).sort()) {
  const relative = path.relative(path.join(root, 'test'), file);
  const tier = relative.startsWith(`long${path.sep}`) ? 'long' : 'main';
  const lines = namesIn(file).map((name) => `  ${name}${tier === 'long' ? '  [second tier]' : ''}`);
  total += lines.length;
  const capability = capabilityOf(relative);
  byCapability.set(capability, [...(byCapability.get(capability) ?? []), ...lines]);
}
for (const [capability, lines] of [...byCapability].sort(([a], [b]) => a.localeCompare(b))) {
  process.stdout.write(`${capability} (${lines.length})\n${[...lines].sort().join('\n')}\n`);
}
process.stdout.write(`${total} test names\n`);
