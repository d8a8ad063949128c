/**
 * The bookkeeping table's rows, and the histories the two lists of before wrote there: SQLite had
 * 16 migrations and PostgreSQL 15, each numbered its own way (SQLite's 14 was PostgreSQL's 13).
 * Every one of them is a migration of the one list under the same name, so an old history is read
 * by name and renumbered, and nothing is run again.
 */
import { ConfigurationError } from '../../../core/errors.js';
import type { DialectName } from '../session.js';
import { doesNothingOn } from './migration.js';
import { migrations } from './migrations.js';

/** A row of `marketkit_migrations`. */
export interface Recorded {
  version: number;
  name: string;
  applied_at: string;
}

/** The old lists' names in their order (version 1 first). Frozen: no migration is added to them. */
const oldLists: Record<DialectName, readonly string[]> = {
  sqlite: ['initial', 'moderation', 'studio', 'studio-keys', 'upload-lifecycle', 'idempotency-keys', 'webhooks', 'usernames-ignore-case', 'upload-states', 'upload-reservations', 'listing-counts', 'caller-version', 'list-moves', 'event-traceparent', 'upload-store-key', 'partial-due-index'],
  postgres: ['initial', 'studio', 'change-version', 'idempotency-keys', 'webhooks', 'own-schema', 'usernames-ignore-case', 'upload-states', 'upload-reservations', 'listing-counts', 'caller-version', 'list-moves', 'event-traceparent', 'upload-store-key', 'seller-count-shards'],
};

const named = new Map(migrations.map((migration) => [migration.name, migration]));
const numbered = new Map(migrations.map((migration) => [migration.version, migration.name]));

/**
 * True when `history` was written by the old list of `dialect`: a row the one list does not have
 * under its number, and every row the old list's. (The first five of SQLite's and the first of
 * PostgreSQL's have the same numbers in both: such a history needs no renumbering.)
 */
export function isOldHistory(dialect: DialectName, history: readonly Recorded[]): boolean {
  return history.some((row) => numbered.get(row.version) !== row.name) && history.every((row) => oldLists[dialect][row.version - 1] === row.name);
}

/** The newest version `history` records, in the one list's numbering (0 for none). */
export function newestOf(dialect: DialectName, history: readonly Recorded[]): number {
  const old = isOldHistory(dialect, history);
  return Math.max(0, ...history.map((row) => (old ? named.get(row.name)!.version : row.version)));
}

/**
 * An old history in the one list's numbering: each row under its migration's number with its
 * time, and the migrations between that have nothing to do on this database (the other's alone)
 * recorded at `now`, so that it holds every version up to its newest, as a history of the one list
 * does. A gap where something was to be done is refused: no migration is said to have run that did not.
 */
export function renumbered(dialect: DialectName, history: readonly Recorded[], now: string, who: string): Recorded[] {
  const applied = new Map(history.map((row) => [row.name, row.applied_at]));
  const newest = newestOf(dialect, history);
  return migrations
    .filter((migration) => migration.version <= newest)
    .map(({ version, name }) => {
      const at = applied.get(name) ?? (doesNothingOn(named.get(name)!, dialect) ? now : undefined);
      if (at === undefined) throw new ConfigurationError(who, `the migration history lacks "${name}" before its newest migration; this MarketKit cannot tell what the database holds`);
      return { version, name, applied_at: at };
    });
}
