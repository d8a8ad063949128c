import { parseOptions } from '../../core/options.js';
import type { UploadStatePort } from '../../core/ports/upload-state.js';
import { uploadStateMethods, uploadStateStatements } from '../sql/upload-states.js';
import { sqliteSession } from './dialect.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';
import type { SqliteStudioOptions } from './studio-storage.js';

const who = 'marketkit sqliteUploadStates';

/**
 * The upload-state port on a SQLite file (the listing storage's, or another), on a connection of
 * its own, migrated here, and the SQL core's methods (adapters/sql/upload-states.ts) over it. On
 * the listing storage's file it takes its turn with the storage's transactions in this process
 * (dialect.ts); `sqliteStorage(...).uploadStates` is the same port on the storage's own connection.
 */
export async function sqliteUploadStates(options: SqliteStudioOptions): Promise<UploadStatePort & { close(): void }> {
  const config = parseOptions(ConnectionOptionsSchema, options, who);
  const db = await openDatabase({ ...config, foreignKeys: false }, who);
  // Every statement prepared once, at open: a typo in one fails here, not on some later append.
  for (const sql of Object.values(uploadStateStatements)) db.prepare(sql);
  return {
    ...uploadStateMethods(sqliteSession(db, config.path)),
    close() {
      db.close();
    },
  };
}
