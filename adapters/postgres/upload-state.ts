import type { UploadStatePort } from '../../core/ports/upload-state.js';
import { uploadStateMethods } from '../sql/upload-states.js';
import { postgresSession } from './dialect.js';
import { openPostgres, type PostgresOptions } from './options.js';

/**
 * The upload-state port on PostgreSQL, for any number of instances, on a pool of its own, migrated
 * here, and the SQL core's methods (adapters/sql/upload-states.ts) over it: each one statement, so
 * the lease and the compare-and-set on the offset are atomic across instances.
 * `postgresStorage(...).uploadStates` is the same port on the storage's own pool.
 */
export async function postgresUploadStates(options: PostgresOptions): Promise<UploadStatePort & { close(): Promise<void> }> {
  const db = await openPostgres(options, 'marketkit postgresUploadStates');
  return { ...uploadStateMethods(postgresSession(db)), close: () => db.close() };
}
