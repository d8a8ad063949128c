/** What a migration is (its own file: every migration names it, and the list in migrations.ts names every migration). */
import type { DialectName } from '../session.js';

/**
 * Where PostgreSQL's statements run: MarketKit's schema, and the schema its tables are in when the
 * migration starts (the same but for a wave-2 layout, until migration 9 moves it).
 */
export interface MigrationPlace {
  schema: string;
  from: string;
}

/** Run in order, in one transaction with the migration's record; unqualified names are in MarketKit's schema. */
export type PostgresStatements = readonly string[] | ((place: MigrationPlace) => string[]);

/**
 * One step of the schema, written once for both databases under one number. Never edit a released
 * one: add the next version instead.
 */
export type Migration = { version: number; name: string } & (
  | {
      /** The same statements on both databases. */
      statements: readonly string[];
    }
  | {
      /** One SQL statement each (not every SQLite driver runs several in one call); none where SQLite has nothing to do. */
      sqlite: readonly string[];
      /** None where PostgreSQL has nothing to do. */
      postgres: PostgresStatements;
    }
);

/** The statements `migration` runs on a database of `dialect` (PostgreSQL's at `place`). */
export function statementsOf(migration: Migration, dialect: 'sqlite'): readonly string[];
export function statementsOf(migration: Migration, dialect: DialectName, place: MigrationPlace): readonly string[];
export function statementsOf(migration: Migration, dialect: DialectName, place?: MigrationPlace): readonly string[] {
  if ('statements' in migration) return migration.statements;
  const variant: PostgresStatements = migration[dialect];
  if (typeof variant !== 'function') return variant;
  if (!place) throw new Error(`marketkit migrations: ${migration.name} needs the place it runs in`);
  return variant(place);
}

/** True when `migration` has no statement for `dialect`: the other database's alone. */
export const doesNothingOn = (migration: Migration, dialect: DialectName): boolean =>
  !('statements' in migration) && typeof migration[dialect] !== 'function' && (migration[dialect] as readonly string[]).length === 0;
