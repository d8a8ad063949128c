/**
 * adapters/sql/tables.ts, how the SQL core reads and writes every table, against the live schema
 * the migrations make on each database, migrated fresh: a column declared but missing, present but
 * undeclared, or kept as another kind than declared fails, naming it. SQLite's columns from
 * `pragma table_info`, PostgreSQL's from `information_schema.columns`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test as plainTest } from 'node:test';
import Database from 'better-sqlite3';
import { postgresStorage } from '../../adapters/postgres/index.js';
import type { DialectName } from '../../adapters/sql/session.js';
import { declaredSchema, type ColumnKind } from '../../adapters/sql/tables.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { needs } from '../fixtures/parts.js';
import { queryRows } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';

/** table -> column -> the type the database reports. */
type LiveSchema = Map<string, Map<string, string>>;

/** How each kind is kept (tables.ts says why): the types each database may report for it. */
const keptAs: Record<DialectName, Record<ColumnKind, readonly string[]>> = {
  sqlite: { text: ['TEXT'], integer: ['INTEGER'], bigint: ['INTEGER'], float: ['REAL'], boolean: ['INTEGER'], json: ['TEXT'] },
  postgres: { text: ['text', 'character varying'], integer: ['integer'], bigint: ['bigint'], float: ['double precision'], boolean: ['boolean'], json: ['json', 'jsonb'] },
};

/** Where tables.ts and the live schema differ, one line each; none when they agree. */
function differences(dialect: DialectName, live: LiveSchema): string[] {
  const declared = declaredSchema(dialect);
  const found: string[] = [];
  for (const [table, columns] of declared) {
    const there = live.get(table);
    if (!there) {
      found.push(`${table}: declared, but no such table`);
      continue;
    }
    for (const [column, kind] of columns) {
      const type = there.get(column);
      if (type === undefined) found.push(`${table}.${column}: declared, but missing`);
      else if (!keptAs[dialect][kind].includes(type)) found.push(`${table}.${column}: declared ${kind}, but kept as ${type}`);
    }
    for (const column of there.keys()) if (!columns.has(column)) found.push(`${table}.${column}: present, but undeclared`);
  }
  for (const table of live.keys()) if (!declared.has(table)) found.push(`${table}: present, but undeclared`);
  return found;
}

function sqliteSchema(path: string): LiveSchema {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'").all() as { name: string; sql: string }[];
    // An FTS5 table's columns are text (it names no type), and its shadow tables are FTS5's own.
    const fts = new Set(tables.filter((t) => /^CREATE VIRTUAL TABLE .* USING fts5\(/i.test(t.sql)).map((t) => t.name));
    const shadow = (name: string) => [...fts].some((table) => ['data', 'idx', 'content', 'docsize', 'config'].some((part) => name === `${table}_${part}`));
    const columnsOf = db.prepare('SELECT name, type FROM pragma_table_info(?)');
    return new Map(
      tables
        .filter(({ name }) => !shadow(name))
        .map(({ name }) => [name, new Map((columnsOf.all(name) as { name: string; type: string }[]).map((c) => [c.name, fts.has(name) && c.type === '' ? 'TEXT' : c.type]))]),
    );
  } finally {
    db.close();
  }
}

async function postgresSchema(url: string): Promise<LiveSchema> {
  const rows = await queryRows(url, "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'marketkit' ORDER BY table_name, ordinal_position");
  const live: LiveSchema = new Map();
  for (const row of rows) {
    if (!live.has(row.table_name)) live.set(row.table_name, new Map());
    live.get(row.table_name)!.set(row.column_name, row.data_type);
  }
  return live;
}

function newSqliteFile(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-tables-'));
  return { path: join(dir, 'marketkit.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

plainTest('tables.ts declares every column of a new SQLite database, and none it lacks, each of its kind', async (t) => {
  const file = newSqliteFile();
  t.after(file.remove);
  await (await sqliteStorage({ path: file.path })).close();
  const live = sqliteSchema(file.path);
  assert.ok(live.size >= 15, `${live.size} tables`);
  assert.deepEqual(differences('sqlite', live), []);
});

plainTest('the comparison fails on a column present but undeclared, declared but missing, of another kind, and on a table nobody declared', async (t) => {
  const file = newSqliteFile();
  t.after(file.remove);
  await (await sqliteStorage({ path: file.path })).close();
  const db = new Database(file.path);
  db.exec('ALTER TABLE accounts ADD COLUMN nickname TEXT');
  db.exec('CREATE TABLE notes (body TEXT)');
  db.close();
  const live = sqliteSchema(file.path);
  live.get('tokens')!.delete('revoked_at');
  live.get('assets')!.set('price', 'TEXT');
  assert.deepEqual(differences('sqlite', live).sort(), [
    'accounts.nickname: present, but undeclared',
    'assets.price: declared float, but kept as TEXT',
    'notes: present, but undeclared',
    'tokens.revoked_at: declared, but missing',
  ]);
});

const postgres = needs('postgresql');
let cluster: PostgresCluster;
postgres.before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

postgres.test('tables.ts declares every column of a new PostgreSQL database, and none it lacks, each of its kind', async () => {
  const url = await cluster.createDatabase();
  await (await postgresStorage({ url })).close();
  const live = await postgresSchema(url);
  assert.ok(live.size >= 15, `${live.size} tables`);
  assert.deepEqual(differences('postgres', live), []);
});
