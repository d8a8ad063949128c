/** What a migration is (its own file: every migration names it, and the list in migrations.ts names every migration). */

/** One step of the schema. Never edit a released one: add the next version instead. */
export interface Migration {
  version: number;
  name: string;
  /** One SQL statement each: not every driver runs several in one call. */
  statements: string[];
}
