/**
 * Ports that are real seams (docs/adapters.md, "Ports by capability"): every port interface is
 * small enough to read in one sitting (at most 12 methods, optional ones included), the table in
 * docs/adapters.md says how many each has, as the code does, and the core's modules name the
 * narrow ports they use: only the wiring holds the whole StoragePort.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = new URL('../../', import.meta.url).pathname;
const portsDir = join(root, 'core', 'ports');

interface PortSize {
  file: string;
  required: number;
  optional: number;
}

/** Every exported interface of core/ports with methods: its file and how many it requires and offers optionally. */
function portSizes(): Map<string, PortSize> {
  const sizes = new Map<string, PortSize>();
  for (const file of readdirSync(portsDir).filter((name) => name.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(portsDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node) || !node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return;
      const methods = node.members.filter((m) => ts.isMethodSignature(m) || (ts.isPropertySignature(m) && m.type !== undefined && ts.isFunctionTypeNode(m.type)));
      if (methods.length === 0) return;
      const optional = methods.filter((m) => m.questionToken !== undefined).length;
      sizes.set(node.name.text, { file, required: methods.length - optional, optional });
    });
  }
  return sizes;
}

test('no port interface has more than 12 methods', () => {
  const sizes = portSizes();
  assert.ok(sizes.has('ListingsPort') && sizes.has('BlobPort'), 'the ports were read');
  const large = [...sizes].filter(([, size]) => size.required + size.optional > 12).map(([name, size]) => `${name} (${size.required} + ${size.optional})`);
  assert.deepEqual(large, []);
});

test("docs/adapters.md's table of ports says what the code has", () => {
  const doc = readFileSync(join(root, 'docs', 'adapters.md'), 'utf8');
  const section = /## Ports by capability\n([\s\S]*?)\n## /.exec(doc)?.[1];
  assert.ok(section, 'docs/adapters.md has "Ports by capability"');
  const rows = [...section.matchAll(/^\| `(\w+)` \| `([\w-]+\.ts)` \| (\d+)(?: \+ (\d+) optional)? \|/gm)];
  assert.ok(rows.length >= 10, `the table has a row per port (${rows.length})`);
  const sizes = portSizes();
  for (const [, name, file, required, optional] of rows) {
    const size = sizes.get(name!);
    assert.ok(size, `${name} is a port of core/ports`);
    assert.deepEqual({ file: name + ' in ' + file, required: Number(required), optional: Number(optional ?? 0) }, { file: name + ' in ' + size.file, required: size.required, optional: size.optional }, `${name}'s row`);
  }
  const listed = new Set(rows.map((row) => row[1]));
  const storageParts = /export interface StoragePort\s+extends ([^{]+)\{/.exec(readFileSync(join(portsDir, 'storage.ts'), 'utf8'))![1]!.split(',').map((part) => part.trim());
  for (const part of storageParts) assert.ok(listed.has(part), `StoragePort's part ${part} has a row`);
});

test("only the wiring holds the whole StoragePort: every other core module names the ports it uses", () => {
  // createMarketplace and its options take the adapter whole and hand each module its part.
  const wiring = new Set(['core/index.ts', 'core/marketplace.ts', 'core/marketplace-options.ts', 'core/storage-capabilities.ts', 'core/operations/context.ts']);
  const files = (function walk(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
  })(join(root, 'core'));
  const whole = files
    .map((file) => relative(root, file))
    .filter((file) => !file.startsWith('core/ports/') && !wiring.has(file))
    .filter((file) => /\bStoragePort\b/.test(readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(whole, []);
});

test('every write with events goes through the change path (core/changes/commit.ts): no other module hands events to the store itself', () => {
  const files = (function walk(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
  })(join(root, 'core'));
  const byHand = files
    .map((file) => relative(root, file))
    .filter((file) => file !== 'core/changes/commit.ts')
    .filter((file) => /\b(causedHere|committed)\(/.test(readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(byHand, []);
});
