import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { localTools } from '../../cli/mcp-tools.js';
import { mcpToolTables, tableIn } from '../../scripts/mcp-tool-docs.js';

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

for (const [name, generated] of Object.entries(mcpToolTables())) {
  test(`docs/mcp.md's ${name} tool table is what the tool declarations give (npm run docs:tools rewrites it)`, () => {
    assert.equal(tableIn(doc, name), generated);
  });
}

test('the tables name every tool a developer token or session gets, hosted or local, each once', () => {
  const tables = Object.values(mcpToolTables()).join('\n');
  const named = localTools.map((tool) => tool.name).filter((name) => tables.split(`\`${name}\``).length !== 2);
  assert.deepEqual(named, []);
});
