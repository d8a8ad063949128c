import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const clientDir = new URL('../../client/', import.meta.url);

test('client/ imports no runtime API and only types from the core, so it runs in browsers, Bun and Deno', () => {
  const files = readdirSync(clientDir).filter((name) => name.endsWith('.ts'));
  assert.ok(files.length >= 5, 'the client was found');
  const violations: string[] = [];
  for (const name of files) {
    const source = readFileSync(new URL(name, clientDir), 'utf8');
    const code = source.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const match of code.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)) {
      const [, , typeOnly, specifier] = match;
      if (specifier!.startsWith('./')) continue;
      // The schemas are the types' source; importing their values would put TypeBox into every bundle.
      if (typeOnly) continue;
      violations.push(`${name} imports ${specifier} at run time`);
    }
    for (const global of [/\bprocess\./, /\bBuffer\b/, /\bBun\./, /\bDeno\./, /\brequire\(/, /__dirname/, /'node:/]) {
      if (global.test(code)) violations.push(`${name} uses ${global.source}`);
    }
  }
  assert.deepEqual(violations, []);
});

/**
 * Every path the client sends is the declarations', through the generated table (client/operations.ts,
 * scripts/client-routes.ts); the upload helpers speak only to the URLs the answers give. A path
 * literal anywhere else would be a copy that drifts, as the hand-written methods once did.
 */
test('client/ spells no API path outside its generated table of operations', () => {
  const generated = new Set(['operations.ts']);
  const found: string[] = [];
  for (const name of readdirSync(clientDir).filter((file) => file.endsWith('.ts') && !generated.has(file))) {
    const code = readFileSync(new URL(name, clientDir), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
    // A string or template literal that starts with a slash and a path character: '/me', `/assets/${id}`.
    for (const match of code.matchAll(/['"`]\/[\w.:{$-]/g)) {
      const line = code.slice(0, match.index).split('\n').length;
      found.push(`${name}:${line}: ${code.split('\n')[line - 1]!.trim()}`);
    }
  }
  assert.deepEqual(found, []);
});
