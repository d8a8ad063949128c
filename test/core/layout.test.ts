/**
 * The layout (docs/architecture.md, "The layout"): the core's folders import each other in one
 * direction only, from the surfaces down to the ports, so that what every surface shares sits
 * below them all and a folder can be read without the ones above it; inside every top folder, no
 * two files import each other round in a circle (type imports included); and a published subpath
 * carries nothing of the CLI. A cycle fails here, naming the imports that close it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const core = join(root, 'core');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The unit a file belongs to: its folder under core/, or the file itself at core's root. */
function unitOf(file: string): string {
  const path = relative(core, file);
  return path.includes('/') ? `${path.split('/')[0]}/` : path;
}

/** The relative imports of a file (type imports and re-exports included), as the files they name. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g)].map(([, specifier]) =>
    resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')),
  );
}

/** unit -> unit -> the imports (file -> file) that make the edge, over the files of `folder`. */
function unitGraph(folder: string, unitOf: (file: string) => string): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sources(folder)) {
    const from = unitOf(file);
    for (const target of importsOf(file)) {
      if (!target.startsWith(`${folder}/`)) continue;
      const to = unitOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to)!.push(`${relative(root, file)} -> ${relative(root, target)}`);
    }
  }
  return graph;
}

/** The groups of units that import each other round in a circle (strongly connected, more than one unit). */
function circles(graph: Map<string, Map<string, string[]>>): string[][] {
  // Tarjan's algorithm: each unit's index and lowest reachable index on the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (unit: string) => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit)!);
    stack.push(unit);
    for (const next of graph.get(unit)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(unit, Math.min(low.get(unit)!, index.get(next)!));
    }
    if (low.get(unit) === index.get(unit)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== unit);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const unit of graph.keys()) if (!index.has(unit)) visit(unit);
  return found;
}

/** Each circle of a graph with the imports inside it, one example import per pair of units. */
function describedCircles(graph: Map<string, Map<string, string[]>>): string[][] {
  return circles(graph).map((group) =>
    group.flatMap((from) => [...(graph.get(from) ?? new Map<string, string[]>())].filter(([to]) => group.includes(to)).map(([to, imports]) => `${from} -> ${to}: ${imports[0]}`)),
  );
}

test('the core’s folders import each other in one direction only: no cycle between folders or root files', () => {
  assert.deepEqual(describedCircles(unitGraph(core, unitOf)), []);
});

const topFolders = ['core', 'adapters', 'bindings', 'cli', 'client', 'testing', 'conformance', 'soak'];

for (const top of topFolders) {
  test(`no two files of ${top}/ import each other round in a circle, type imports included`, () => {
    const folder = join(root, top);
    assert.deepEqual(describedCircles(unitGraph(folder, (file) => relative(root, file))), []);
  });
}

test('marketkit/testing reaches nothing of the CLI, through any chain of imports', () => {
  const seen = new Set<string>();
  const reached: string[] = [];
  const walk = (file: string, via: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (file.startsWith(join(root, 'cli/'))) reached.push([...via, relative(root, file)].join(' -> '));
    for (const target of importsOf(file)) walk(target, [...via, relative(root, file)]);
  };
  walk(join(root, 'testing/index.ts'), []);
  assert.ok(seen.size > 10, `${seen.size} files reached from testing/index.ts`);
  assert.deepEqual(reached, []);
});

test('no source file is over 300 lines (issue 22: a file a newcomer reads at once); tests, docs and generated types aside', async () => {
  const { execFileSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url).pathname;
  const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /^(core|adapters|bindings|cli|client|testing|conformance|soak)\//.test(file) && !file.endsWith('.d.ts'));
  assert.ok(files.length > 100, `${files.length} source files found`);
  const long = files.map((file) => [file, readFileSync(`${root}${file}`, 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > 300);
  assert.deepEqual(long, [], 'split these files (a table, a family of methods, a helper module)');
});
