import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import type { StudioStoragePort } from '../../core/ports/studio.js';
import { studioMethods, studioStatements } from '../sql/studio.js';
import type { SqliteDriverName } from './drivers/driver.js';
import { sqliteDialect, sqliteSession } from './dialect.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';

export type SqliteStudioOptions = v.InferInput<typeof ConnectionOptionsSchema>;

export interface SqliteStudio extends StudioStoragePort {
  readonly driver: SqliteDriverName;
  readonly path: string;
  close(): Promise<void>;
}

/** Every statement of the adapter (the SQL core's, adapters/sql/studio.ts); the schema test checks each is served by an index. */
export const studioQueries = studioStatements(sqliteDialect);

const who = 'marketkit sqliteStudio';

/**
 * Creator Studio's storage on SQLite: the `studio_records` table of the same database file the
 * listing storage uses (or another), opened on its own connection and migrated here. Each write
 * is one BEGIN IMMEDIATE transaction, so positions stay dense under concurrent moves from this
 * process or another; in this process it takes its turn with the listing storage's on the same file.
 */
export async function sqliteStudio(options: SqliteStudioOptions): Promise<SqliteStudio> {
  const config = parseOptions(ConnectionOptionsSchema, options, who);
  const db = await openDatabase({ ...config, foreignKeys: false }, who);
  for (const sql of Object.values(studioQueries)) db.prepare(sql);
  const session = sqliteSession(db, config.path);
  return {
    driver: db.name,
    path: config.path,
    ...studioMethods(session, who),
    async ping() {
      await session.all(studioQueries.get, ['']);
    },
    async close() {
      db.close();
    },
  };
}
