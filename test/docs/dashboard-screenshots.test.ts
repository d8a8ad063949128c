/**
 * docs/dashboard.md's screenshots (its "Screenshots" section, made by `npm run docs:screenshots`,
 * scripts/dashboard-screenshots.ts): every image the page embeds is there, and the script's list of
 * screenshots and the page's images are the same, so a renamed or dropped page cannot leave a stale
 * picture behind silently. No browser: the script's module is imported, which runs nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { screenshots } from '../../scripts/dashboard-screenshots.js';

const docs = new URL('../../docs/', import.meta.url);
const doc = readFileSync(new URL('dashboard.md', docs), 'utf8');
/** Every image docs/dashboard.md embeds: [alt, path relative to docs/]. */
const embedded = [...doc.matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)].map((m) => [m[1]!, m[2]!] as const);

test('every image docs/dashboard.md embeds exists', () => {
  assert.ok(embedded.length > 0, 'docs/dashboard.md embeds images');
  assert.deepEqual(embedded.filter(([, path]) => !existsSync(new URL(path, docs))).map(([, path]) => path), []);
});

test("the script's screenshots are the dashboard images docs/dashboard.md embeds, in order, with the script's alt text", () => {
  const shown = embedded.filter(([, path]) => path.startsWith('images/dashboard/'));
  assert.deepEqual(shown, screenshots.map((shot) => [shot.alt, `images/dashboard/${shot.name}.png`]));
});

test('docs/images/dashboard/ holds the screenshots and nothing else, each a PNG under 150 KB', () => {
  const dir = new URL('images/dashboard/', docs);
  assert.deepEqual(readdirSync(dir).sort(), screenshots.map((shot) => `${shot.name}.png`).sort(), 'a picture no script makes is stale: delete it or add it to the script');
  for (const shot of screenshots) {
    const file = new URL(`${shot.name}.png`, dir);
    assert.deepEqual([...readFileSync(file).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${shot.name}.png is a PNG`);
    assert.ok(statSync(file).size < 150 * 1024, `${shot.name}.png is under 150 KB`);
  }
});

test('the page names the command that makes them', () => {
  assert.match(doc, /npm run docs:screenshots/);
});
