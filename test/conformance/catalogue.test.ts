import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkCatalogue, renderCatalogue, requirements } from '../../conformance/index.js';

const docPath = new URL('../../docs/conformance.md', import.meta.url);
const start = '<!-- requirements:start -->';
const end = '<!-- requirements:end -->';

test('requirement ids are unique, stable-looking, and every check names known requirements', () => {
  const ids = requirements.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, 'unique ids');
  for (const id of ids) assert.match(id, /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/);
  const checks = checkCatalogue();
  assert.equal(new Set(checks.map((c) => c.id)).size, checks.length, 'unique check ids');
  for (const check of checks) for (const id of check.requirements) assert.ok(ids.includes(id), `${check.id} names an unknown requirement ${id}`);
});

test('every requirement is covered by a check, or says why no black-box check can cover it (never both)', () => {
  const checks = checkCatalogue();
  for (const r of requirements) {
    const covered = checks.some((c) => c.requirements.includes(r.id));
    assert.ok(covered !== Boolean(r.notChecked), `${r.id}: ${covered ? 'covered but marked notChecked' : 'neither covered nor explained'}`);
  }
});

test('docs/conformance.md lists every requirement as the catalogue and the checks say', () => {
  const doc = readFileSync(docPath, 'utf8');
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  assert.ok(from >= 0 && to > from, 'the markers are in the document');
  const generated = `${start}\n${renderCatalogue()}\n${end}`;
  const current = doc.slice(from, to + end.length);
  if (process.env.UPDATE_CONFORMANCE_DOCS === '1') {
    writeFileSync(docPath, doc.slice(0, from) + generated + doc.slice(to + end.length));
    return;
  }
  assert.equal(current, generated, 'docs/conformance.md is out of date: UPDATE_CONFORMANCE_DOCS=1 node --import tsx --test test/conformance/catalogue.test.ts');
  for (const r of requirements) assert.ok(doc.includes(`| \`${r.id}\` |`), r.id);
});
