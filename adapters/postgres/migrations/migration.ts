/** What a migration is (its own file: every migration names it, and the list in migrations.ts names every migration). */

/** Where a migration runs: MarketKit's schema, and the schema its tables are in when it starts (the same but for a wave-2 layout, until migration 6 moves it). */
export interface MigrationPlace {
  schema: string;
  from: string;
}

/** One step of the schema. Never edit a released one: add the next version instead. */
export interface Migration {
  version: number;
  name: string;
  /** Run in order, in one transaction with the migration's record; unqualified names are in MarketKit's schema. */
  statements: string[] | ((place: MigrationPlace) => string[]);
}
