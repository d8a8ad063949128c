import type { StudioStoragePort } from '../../core/ports/studio.js';
import { studioMethods, studioStatements } from '../sql/studio.js';
import { postgresDialect, postgresSession, postgresText } from './dialect.js';
import { openPostgres, type PostgresOptions } from './options.js';

export type PostgresStudioOptions = PostgresOptions;

export interface PostgresStudio extends StudioStoragePort {
  /** `host:port/database`, for messages (never the password). */
  readonly where: string;
  /** Ends the pool's connections once the calls in flight are done. */
  close(): Promise<void>;
}

/** Every statement of the adapter, as PostgreSQL gets it; the schema test checks each is served by an index. */
export const studioSql: Record<string, string> = {
  ...Object.fromEntries(Object.entries(studioStatements(postgresDialect)).map(([name, text]) => [name, postgresText(text)])),
  lockProject: postgresText(postgresDialect.nameLock!),
  ping: 'SELECT 1 AS ok',
};

const who = 'marketkit postgresStudio';

/**
 * Creator Studio's storage on PostgreSQL: the `studio_records` table of the same database the
 * listing storage uses (or another), on a pool of its own, migrated here (one migration history
 * with the listing storage), and the SQL core's studio methods (adapters/sql/studio.ts) over it:
 * each write one transaction under its project's advisory lock; reads take no lock.
 */
export async function postgresStudio(options: PostgresStudioOptions): Promise<PostgresStudio> {
  const db = await openPostgres(options, who);
  const session = postgresSession(db);
  return {
    where: db.where,
    ...studioMethods(session, who),
    async ping() {
      await session.all(studioSql.ping!);
    },
    async close() {
      await db.close();
    },
  };
}
