/**
 * Production `marketkit serve` loads nothing of the testing kit or the conformance suite (issue 45):
 * from cli/serve.ts, no chain of static imports (type imports included) reaches testing/ or
 * conformance/. What needs them is loaded with `await import()` only when its flag is given
 * (--test-controls: cli/serve-test-controls.ts; --fixtures: conformance/fixture-accounts.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;

/** The files a source file imports statically (import and export ... from, type imports included), resolved. */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((statement) => {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) return [];
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return [];
    return [resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'))];
  });
}

/** Every file reached from `start`, each with the chain of imports that reached it first. */
function reachable(start: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[start, [relative(root, start)]]]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of staticImports(file)) {
      if (chains.has(target)) continue;
      chains.set(target, [...chains.get(file)!, relative(root, target)]);
      queue.push(target);
    }
  }
  return chains;
}

test('cli/serve.ts reaches no file of testing/ or conformance/ through static imports', () => {
  const chains = reachable(join(root, 'cli/serve.ts'));
  assert.ok(chains.size > 50, `${chains.size} files reached from cli/serve.ts`);
  assert.ok(chains.has(join(root, 'core/marketplace.ts')), 'the walk follows the imports into the core');
  const reached = [...chains].filter(([file]) => /^(testing|conformance)\//.test(relative(root, file))).map(([, chain]) => chain.join(' -> '));
  assert.deepEqual(reached, []);
});

test('the walk would see a static import of the testing kit', () => {
  // The kit's own entry point reaches testing/ at once: the walk is not blind to it.
  const chains = reachable(join(root, 'cli/serve-test-controls.ts'));
  assert.ok([...chains.keys()].some((file) => relative(root, file).startsWith('testing/')));
});
