/**
 * Where the migrations find MarketKit's schema and its bookkeeping on PostgreSQL, under the
 * migration lock (migrate.ts): the schema is made when missing, and a wave-2 layout (every table in
 * the schema the connections of that release worked in) is recognised so that migration 9 can move it.
 */
import { ConfigurationError } from '../../core/errors.js';
import { newestOf } from '../sql/migrations/history.js';
import { ownSchema } from '../sql/migrations/009-own-schema.js';
import { sqlState, type PgSession } from './driver.js';

/**
 * Creates `schema` when it does not exist, then checks that the connection works in it. Asked
 * first, created only when missing: `CREATE SCHEMA IF NOT EXISTS` checks the CREATE privilege on
 * the database even when the schema is there, and a role given a schema made by its owner need
 * not have it. A connection whose `search_path` does not start with the schema (a pooler that
 * dropped the startup option) would create and read tables elsewhere: refused, saying why.
 */
export async function ensureSchema(session: PgSession, schema: string, where: string, who: string): Promise<void> {
  const exists = (await session.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount > 0;
  if (!exists) {
    try {
      await session.query(`CREATE SCHEMA ${schema}`);
    } catch (error) {
      if (sqlState(error) === '42501') {
        throw new ConfigurationError(
          who,
          `the role may not create the schema "${schema}" in the database at ${where} (${(error as Error).message}): ` +
            `create it once as a role that may ("CREATE SCHEMA ${schema} AUTHORIZATION <this role>"), or grant this role CREATE on the database (docs/deploy.md)`,
        );
      }
      // Made meanwhile by someone who does not take MarketKit's lock: it is there.
      if (sqlState(error) !== '42P06') throw error;
    }
  }
  const current = (await session.query('SELECT current_schema() AS name')).rows[0]?.name as string | null | undefined;
  if (current !== schema) {
    throw new ConfigurationError(
      who,
      `connections to the database at ${where} do not work in the schema "${schema}" (current_schema() is ${current ? `"${current}"` : 'none'}): ` +
        'something between MarketKit and PostgreSQL (a pooler in transaction mode, say) dropped the search_path startup option; connect directly or through a pooler in session mode (docs/deploy.md)',
    );
  }
}

/**
 * The schema whose `marketkit_migrations` the runner reads: `schema` when it has one; else a
 * layout from before MarketKit had a schema of its own, in the first of the schemas the server's
 * default search_path (`"$user", public`) names that holds one, if that layout has not had the
 * own-schema migration (a later one is another deployment's, in a schema chosen for it, and is
 * left alone); else null (a new database). The layout's history may be in the old PostgreSQL
 * list's numbering or, renumbered, in the one list's: it is read in its own.
 */
export async function findBookkeeping(session: PgSession, schema: string): Promise<string | null> {
  const { rows } = await session.query(
    `SELECT n.nspname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relname = 'marketkit_migrations' AND c.relkind = 'r' AND n.nspname IN ($1, current_user, 'public')
     ORDER BY n.nspname = $1 DESC, n.nspname = current_user DESC`,
    [schema],
  );
  const homes = rows.map((row) => row.name as string);
  if (homes.includes(schema)) return schema;
  for (const home of homes) {
    // A name from pg_namespace, quoted as an identifier: a role may be called anything.
    const quoted = `"${home.replaceAll('"', '""')}"`;
    const history = (await session.query(`SELECT version, name, applied_at FROM ${quoted}.marketkit_migrations`)).rows as { version: number; name: string; applied_at: string }[];
    if (newestOf('postgres', history) < ownSchema.version) return quoted;
  }
  return null;
}
