// The tool tables of docs/mcp.md, written from the tool declarations: the hosted endpoint's tools
// (core/mcp/tools.ts, from the operations' `tool`), the local process's own (cli/mcp-tools.ts) and
// Creator Studio's (core/studio/tools.ts). Each table sits between `<!-- tools:<name>:start -->` and
// `<!-- tools:<name>:end -->`; test/docs/mcp-tool-tables.test.ts fails when one differs from what the
// declarations give. Run `npm run docs:tools` after adding or changing a tool.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { localTools } from '../cli/mcp-tools.js';
import { routeOf } from '../core/http/routes.js';
import { hostedTools } from '../core/mcp/tools.js';
import type { ToolAnnotations } from '../core/operations/declaration.js';
import { pluralKey, studioKinds, studioResources } from '../core/studio/resources.js';
import { studioTools } from '../core/studio/tools.js';

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** MCP's hints in words: read-only, else whether it overwrites or only adds, and whether a repeat does more. */
function hints(annotations: ToolAnnotations): string {
  if (annotations.readOnlyHint) return 'read-only';
  return `${annotations.destructiveHint ? 'destructive' : 'adds'}, ${annotations.idempotentHint ? 'idempotent' : 'not idempotent'}`;
}

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

/** Every hosted tool: its title, the scope of its operation, the REST route that is its twin, its hints. */
function hostedTable(): string {
  return table(
    ['Tool', 'What it does', 'Scope', 'REST twin', 'Hints'],
    hostedTools.map((tool) => {
      const route = tool.operation ? routeOf(tool.operation) : null;
      return [
        code(tool.name),
        tool.title,
        // A tool that is no operation needs no scope (health_check).
        tool.operation ? code(tool.operation.scope) : 'any valid token',
        route ? code(`${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`) : 'none',
        hints(tool.annotations),
      ];
    }),
  );
}

/** The local process's tools that are neither the hosted endpoint's nor Creator Studio's. */
function localTable(): string {
  const elsewhere = new Set([...hostedTools, ...studioTools].map((tool) => tool.name));
  return table(
    ['Tool', 'What it does', 'Hints'],
    localTools.filter((tool) => !elsewhere.has(tool.name)).map((tool) => [code(tool.name), tool.title, hints(tool.annotations)]),
  );
}

/** Creator Studio's tools by resource, in the resource table's order, with what the resource is. */
function studioTable(): string {
  const kindOf = (name: string) => studioKinds.find((kind) => name.endsWith(`_${kind}`) || name.endsWith(`_${pluralKey(studioResources[kind])}`));
  return table(
    ['Resource', 'Tools', 'What it is'],
    studioKinds.map((kind) => [
      studioResources[kind].title,
      studioTools.filter((tool) => kindOf(tool.name) === kind).map((tool) => code(tool.name)).join(' '),
      studioResources[kind].description,
    ]),
  );
}

/** The generated tables by marker name. */
export function mcpToolTables(): Record<string, string> {
  return { hosted: hostedTable(), local: localTable(), studio: studioTable() };
}

const marker = (name: string, end: 'start' | 'end') => `<!-- tools:${name}:${end} -->`;

/** The table between a pair of markers of `doc`, or null when the markers are missing. */
export function tableIn(doc: string, name: string): string | null {
  const start = doc.indexOf(marker(name, 'start'));
  const end = doc.indexOf(marker(name, 'end'));
  if (start < 0 || end < start) return null;
  return doc.slice(start + marker(name, 'start').length, end).trim();
}

/** `doc` with every table replaced by what the declarations give. */
export function withToolTables(doc: string): string {
  let next = doc;
  for (const [name, generated] of Object.entries(mcpToolTables())) {
    if (tableIn(next, name) === null) throw new Error(`docs/mcp.md has no ${marker(name, 'start')} ... ${marker(name, 'end')}: put the pair where the table goes.`);
    const start = next.indexOf(marker(name, 'start')) + marker(name, 'start').length;
    next = `${next.slice(0, start)}\n${generated}\n${next.slice(next.indexOf(marker(name, 'end')))}`;
  }
  return next;
}

// `npm run docs:tools` rewrites the tables in place.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = new URL('../docs/mcp.md', import.meta.url);
  writeFileSync(file, withToolTables(readFileSync(file, 'utf8')));
}
