/**
 * Guards the storage contract's reach: every method of every repository
 * interface (src/**\/*-repository.ts) must be named in the CONTRACT_COVERS
 * table of a storage contract file (test/contract/storage/*.test.ts), that file must
 * call the method and run on every backend. Adding a repository method
 * without a contract test fails here.
 *
 * Everything is read with the TypeScript parser, not imported: importing a
 * test file would run its tests.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../../support/process.js';

const SRC = path.join(ROOT, 'src');
const CONTRACT_DIR = path.join(ROOT, 'test', 'contract', 'storage');

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFilesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function nameOf(name: ts.PropertyName): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  throw new Error(`unsupported member name: ${name.getText()}`);
}

/** Storage's repository properties: property name -> interface name, e.g. apiKeys -> ApiKeysRepository. */
function storageRepositories(): Map<string, string> {
  const found = new Map<string, string>();
  let storages = 0;
  for (const file of sourceFilesUnder(SRC)) {
    for (const statement of parse(file).statements) {
      if (!ts.isInterfaceDeclaration(statement) || statement.name.text !== 'Storage') continue;
      storages++;
      for (const member of statement.members) {
        if (!ts.isPropertySignature(member) || member.type === undefined || !ts.isTypeReferenceNode(member.type)) continue;
        const typeName = member.type.typeName.getText();
        if (typeName.endsWith('Repository')) found.set(nameOf(member.name), typeName);
      }
    }
  }
  assert.equal(storages, 1, 'exactly one `interface Storage` in src/');
  return found;
}

/** Every interface declared in src/, by name (for following `extends`). */
function allInterfaces(): Map<string, ts.InterfaceDeclaration> {
  const found = new Map<string, ts.InterfaceDeclaration>();
  for (const file of sourceFilesUnder(SRC)) {
    for (const statement of parse(file).statements) if (ts.isInterfaceDeclaration(statement)) found.set(statement.name.text, statement);
  }
  return found;
}

/**
 * The required methods of an interface, inherited ones included (through
 * `extends`, e.g. DeliveryQueue). An optional method (`settleMany?`) is one a
 * repository may leave out, so it is not required.
 */
function methodsOf(declaration: ts.InterfaceDeclaration, interfaces: Map<string, ts.InterfaceDeclaration>): string[] {
  const own = declaration.members.flatMap((member) => {
    if (member.questionToken !== undefined) return [];
    if (ts.isMethodSignature(member)) return [nameOf(member.name)];
    if (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type)) return [nameOf(member.name)];
    return [];
  });
  const inherited = (declaration.heritageClauses ?? []).flatMap((clause) =>
    clause.types.flatMap((type) => {
      const parent = interfaces.get(type.expression.getText());
      // An interface this reading cannot see would hide methods: refuse rather than under-count.
      assert.ok(parent !== undefined, `${declaration.name.text} extends ${type.expression.getText()}, which is not an interface in src/`);
      return methodsOf(parent, interfaces);
    }),
  );
  return [...new Set([...inherited, ...own])];
}

/** Each exported `interface …Repository` of src/**\/*-repository.ts with its method names. */
function repositoryInterfaces(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const interfaces = allInterfaces();
  for (const file of sourceFilesUnder(SRC).filter((f) => f.endsWith('-repository.ts'))) {
    for (const statement of parse(file).statements) {
      if (!ts.isInterfaceDeclaration(statement) || !statement.name.text.endsWith('Repository')) continue;
      const methods = methodsOf(statement, interfaces);
      assert.equal(found.has(statement.name.text), false, `${statement.name.text} declared twice`);
      found.set(statement.name.text, methods);
    }
  }
  return found;
}

function unwrap(expression: ts.Expression): ts.Expression {
  if (ts.isSatisfiesExpression(expression) || ts.isAsExpression(expression) || ts.isParenthesizedExpression(expression)) return unwrap(expression.expression);
  return expression;
}

interface ContractFile {
  file: string;
  /** "repository.method" entries of its CONTRACT_COVERS table. */
  covers: string[];
  /** "repository.method" for every call of the form `<anything>.repository.method(…)`. */
  calls: Set<string>;
  runsOnEveryBackend: boolean;
}

function contractFiles(): ContractFile[] {
  const files: ContractFile[] = [];
  for (const file of sourceFilesUnder(CONTRACT_DIR).filter((f) => f.endsWith('.test.ts'))) {
    const source = parse(file);
    const covers: string[] = [];
    const calls = new Set<string>();
    let runsOnEveryBackend = false;
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'CONTRACT_COVERS' && node.initializer !== undefined) {
        const table = unwrap(node.initializer);
        assert.ok(ts.isObjectLiteralExpression(table), `${file}: CONTRACT_COVERS must be an object literal`);
        for (const property of table.properties) {
          assert.ok(ts.isPropertyAssignment(property), `${file}: CONTRACT_COVERS entries must be plain properties`);
          const methods = unwrap(property.initializer);
          assert.ok(ts.isArrayLiteralExpression(methods), `${file}: CONTRACT_COVERS.${nameOf(property.name)} must be an array literal`);
          for (const method of methods.elements) {
            assert.ok(ts.isStringLiteral(method), `${file}: CONTRACT_COVERS lists method names as string literals`);
            covers.push(`${nameOf(property.name)}.${method.text}`);
          }
        }
      }
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        if (ts.isPropertyAccessExpression(callee) && ts.isPropertyAccessExpression(callee.expression)) {
          calls.add(`${callee.expression.name.text}.${callee.name.text}`);
        }
        if (ts.isIdentifier(callee) && callee.text === 'storageBackends') runsOnEveryBackend = true;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (covers.length > 0) files.push({ file: path.relative(ROOT, file), covers, calls, runsOnEveryBackend });
  }
  return files;
}

test('when the repository interfaces are read, then each is reachable from Storage and has methods', () => {
  const interfaces = repositoryInterfaces();
  const storage = storageRepositories();
  assert.ok(interfaces.size >= 6, `found only ${[...interfaces.keys()].join(', ')}`);
  assert.deepEqual([...storage.values()].sort(), [...interfaces.keys()].sort(), 'Storage holds exactly the repository interfaces');
  for (const [name, methods] of interfaces) assert.ok(methods.length > 0, `${name} has no methods`);
});

test('when a repository interface method has no contract test, then this fails naming it', () => {
  const interfaces = repositoryInterfaces();
  const required = new Set<string>();
  for (const [property, interfaceName] of storageRepositories()) {
    for (const method of interfaces.get(interfaceName) ?? []) required.add(`${property}.${method}`);
  }
  const files = contractFiles();
  const covered = new Set<string>();
  for (const { file, covers, calls, runsOnEveryBackend } of files) {
    assert.ok(runsOnEveryBackend, `${file} declares CONTRACT_COVERS but does not run on storageBackends()`);
    for (const entry of covers) {
      assert.ok(calls.has(entry), `${file} lists ${entry} in CONTRACT_COVERS but never calls it`);
      covered.add(entry);
    }
  }
  const missing = [...required].filter((entry) => !covered.has(entry)).sort();
  const unknown = [...covered].filter((entry) => !required.has(entry)).sort();
  assert.deepEqual(missing, [], `repository methods without a storage contract test (add one to a file under test/contract/storage/ and list it in its CONTRACT_COVERS): ${missing.join(', ')}`);
  assert.deepEqual(unknown, [], `CONTRACT_COVERS names methods no repository interface has: ${unknown.join(', ')}`);
});
