/**
 * The core's layout (docs/architecture.md, "The layout"): its folders import each other in one
 * direction only, from the surfaces down to the ports, so that what every surface shares sits
 * below them all and a folder can be read without the ones above it. A cycle between two folders
 * (or a file at the root and a folder) fails here, naming the imports that close it.
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

/** unit -> unit -> the imports (file -> file) that make the edge. */
function unitGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sources(core)) {
    const from = unitOf(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), specifier!.replace(/\.js$/, '.ts'));
      if (!target.startsWith(core)) continue;
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

test('the core’s folders import each other in one direction only: no cycle between folders or root files', () => {
  const graph = unitGraph();
  // Each circle with the imports inside it, one example import per pair of units.
  const described = circles(graph).map((group) =>
    group.flatMap((from) => [...(graph.get(from) ?? new Map<string, string[]>())].filter(([to]) => group.includes(to)).map(([to, imports]) => `${from} -> ${to}: ${imports[0]}`)),
  );
  assert.deepEqual(described, []);
});

test('no source file is over 300 lines (issue 22: a file a newcomer reads at once); tests, docs and generated types aside', async () => {
  const { execFileSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url).pathname;
  const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /^(core|adapters|bindings|cli|client|testing|conformance)\//.test(file) && !file.endsWith('.d.ts'));
  assert.ok(files.length > 100, `${files.length} source files found`);
  const long = files.map((file) => [file, readFileSync(`${root}${file}`, 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > 300);
  assert.deepEqual(long, [], 'split these files (a table, a family of methods, a helper module)');
});
