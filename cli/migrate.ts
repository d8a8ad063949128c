import * as v from 'valibot';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { databaseSchemaFlag, databaseUrlFlag, databaseUrlOf } from './database.js';

export const migrateCommand = {
  name: 'migrate',
  summary: 'Bring a PostgreSQL database to this MarketKit’s schema, and nothing else (for deploy pipelines).',
  usage: 'marketkit migrate [--database-url <url>] [--database-schema <name>] [--json]',
  options: { ...databaseUrlFlag.option, ...databaseSchemaFlag.option, json: { type: 'boolean' } },
  help: [
    [databaseUrlFlag.help[0], `The database to migrate. ${databaseUrlFlag.help[1].replace(/^Keep the data in this /, 'A ')}`],
    [...databaseSchemaFlag.help],
    ['--json', 'Print what was done as one JSON object: { "database", "from", "to", "applied": [{ "version", "name" }] }, with "renumbered": { "from", "to" } when the history was renumbered.'],
  ],
  schema: v.object({ 'database-url': databaseUrlFlag.schema, 'database-schema': databaseSchemaFlag.schema, json: v.optional(v.boolean(), false) }),
} satisfies CommandSpec<v.GenericSchema>;

const migrateNotes = [
  '',
  'Every migration the database lacks is applied in order, each in its own transaction, under the',
  'advisory lock every instance takes when it opens the database: safe to run while older instances',
  'serve, and ten at once migrate once. A database written by a newer MarketKit is refused (exit 1).',
  'serve migrates at start as well; run this first in a pipeline so that no instance starts on a',
  'schema it has to change (docs/deploy.md). A database migrated before SQLite and PostgreSQL had',
  'one migration list has its history renumbered first, in one transaction: nothing runs again.',
].join('\n');

/** `marketkit migrate`: applies the migrations and says which, or that there were none. */
export async function runMigrate(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(migrateCommand, argv);
  if (parsed.help) return out(`${helpText(migrateCommand)}\n${migrateNotes}`);
  const database = databaseUrlOf(parsed.values['database-url'], env, parsed.values['database-schema']);
  if (!database) throw new UsageError('name the database: --database-url postgres://user:password@host:5432/name, or set MARKETKIT_DATABASE_URL (or DATABASE_URL).');
  const { migratePostgres } = await import('../adapters/postgres/index.js');
  const report = await migratePostgres({ url: database.url, schema: database.schema, poolSize: 1 });
  const { renumbered } = report;
  if (parsed.values.json) return out(JSON.stringify({ database: report.where, from: report.from, to: report.to, applied: report.applied, ...(renumbered && { renumbered }) }));
  if (renumbered) out(`Renumbered the migration history of the database at ${report.where} onto the one list: its version ${renumbered.from} is version ${renumbered.to}.`);
  if (report.applied.length === 0) {
    out(`The database at ${report.where} is at schema version ${report.to}, the newest this MarketKit knows: nothing to do.`);
    return;
  }
  out(`Migrated the database at ${report.where} from schema version ${report.from} to ${report.to}:`);
  for (const migration of report.applied) out(`  applied ${migration.version} ${migration.name}`);
}
