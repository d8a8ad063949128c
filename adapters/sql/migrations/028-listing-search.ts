import type { Migration } from './migration.js';

/**
 * The listings' word index (AssetQuery.search; docs/adapters.md, "Search"): every run of three
 * characters of a listing's folded title and slug, so that a search finds the few listings that
 * can hold its text by an index, not by reading each of the seller's listings. The index is a
 * filter only: every candidate is checked with the search's own rule (containsFolded), so what a
 * search answers is what it answered before this migration, on every store.
 *
 * SQLite: an FTS5 table with the trigram tokenizer (case-sensitive: the text is folded A-Z by
 * lower() before, the search's rule), detail=none (rowids only: a search asks for every trigram of
 * its text, AND, and checks the rest). Its rowids are those of asset_search_keys, whose INTEGER
 * PRIMARY KEY a VACUUM never renumbers (an assets rowid it may). Triggers keep both on every write
 * of assets, seeds and restores included.
 *
 * PostgreSQL: a GIN index on an expression, the array of the folded text's trigrams
 * (marketkit_grams, plain SQL, no extension to install): a search asks for the rows whose array
 * contains its text's.
 */
const words = (row: string) => `lower(${row}.title) || char(10) || lower(${row}.slug)`;
const fold = (column: string) => `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
/** The expression PostgreSQL's index is on: a search's statement names it as written here (adapters/postgres/dialect.ts). */
export const postgresSearchWords = `${fold('title')} || E'\\n' || ${fold('slug')}`;
const key = (row: string) => `(SELECT id FROM asset_search_keys WHERE asset_id = ${row}.id)`;

export const listingSearch: Migration = {
  version: 28,
  name: 'listing-search',
  sqlite: [
    'CREATE TABLE asset_search_keys (id INTEGER PRIMARY KEY, asset_id TEXT NOT NULL UNIQUE)',
    "CREATE VIRTUAL TABLE asset_search USING fts5(words, tokenize = 'trigram case_sensitive 1', detail = none)",
    'INSERT INTO asset_search_keys (asset_id) SELECT id FROM assets',
    `INSERT INTO asset_search (rowid, words) SELECT k.id, ${words('a')} FROM asset_search_keys k JOIN assets a ON a.id = k.asset_id`,
    `CREATE TRIGGER asset_search_added AFTER INSERT ON assets BEGIN
      INSERT INTO asset_search_keys (asset_id) VALUES (new.id);
      INSERT INTO asset_search (rowid, words) VALUES (${key('new')}, ${words('new')});
    END`,
    `CREATE TRIGGER asset_search_changed AFTER UPDATE OF title, slug ON assets WHEN old.title IS NOT new.title OR old.slug IS NOT new.slug BEGIN
      UPDATE asset_search SET words = ${words('new')} WHERE rowid = ${key('new')};
    END`,
    `CREATE TRIGGER asset_search_removed AFTER DELETE ON assets BEGIN
      DELETE FROM asset_search WHERE rowid = ${key('old')};
      DELETE FROM asset_search_keys WHERE asset_id = old.id;
    END`,
  ],
  postgres: [
    // Every distinct run of three characters (code points) of `words`; none for a shorter text.
    `CREATE FUNCTION marketkit_grams(words text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
      SELECT COALESCE(array_agg(DISTINCT substr(words, i, 3)), '{}') FROM generate_series(1, char_length(words) - 2) AS i
    $$`,
    `CREATE INDEX assets_search ON assets USING gin (marketkit_grams(${postgresSearchWords}))`,
  ],
};
