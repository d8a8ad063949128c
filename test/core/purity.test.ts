import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const coreDir = join(root, 'core');

/** Packages the core may import: each runs on every runtime with web-standard globals only. */
const allowedPackages = ['@sinclair/typebox', 'valibot', 'jose', '@noble/hashes', 'hash-wasm', '@simplewebauthn/server'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(pattern)) specifiers.push((match[1] ?? match[2] ?? match[3])!);
  return specifiers;
}

test('the core imports no runtime API, no adapter and no binding', () => {
  const files = filesUnder(coreDir);
  assert.ok(files.length > 20, 'the core was found');
  const violations: string[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const specifier of importsOf(source)) {
      const where = relative(root, file);
      if (specifier.startsWith('.')) {
        const target = relative(root, join(file, '..', specifier));
        if (!target.startsWith('core/')) violations.push(`${where} imports ${specifier} (outside core/)`);
      } else if (!allowedPackages.some((pkg) => specifier === pkg || specifier.startsWith(`${pkg}/`))) {
        violations.push(`${where} imports ${specifier}`);
      }
    }
    // Runtime globals are as much a dependency as an import.
    for (const global of ['process.', 'Buffer.', 'Bun.', 'Deno.', 'require(', '__dirname']) {
      const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      if (code.includes(global)) violations.push(`${relative(root, file)} uses ${global}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the import check catches what it is meant to catch', () => {
  assert.deepEqual(importsOf("import { x } from 'node:fs';\nexport * from '../adapters/memory/index.js';\nconst m = await import('bun:sqlite');"), [
    'node:fs',
    '../adapters/memory/index.js',
    'bun:sqlite',
  ]);
});
