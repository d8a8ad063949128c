import * as v from 'valibot';

/** The PostgreSQL schema every table, function and trigger of MarketKit's lives in, unless told otherwise. */
export const defaultSchema = 'marketkit';

/**
 * What a schema name may be: a lowercase PostgreSQL name that needs no quoting anywhere (in a
 * `search_path` startup option, in SQL, in a function body), so that no quoting rule can be got
 * wrong between them. `pg_` names are the server's own, and `information_schema` is the standard's.
 */
const pattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** Why `name` cannot be a schema of MarketKit's, in words that name `option`; undefined when it can. */
export function schemaNameProblem(name: string, option: string): string | undefined {
  if (!pattern.test(name)) return `${option} must be a lowercase PostgreSQL schema name: letters a-z, digits and _, not starting with a digit, at most 63 characters (got "${name}")`;
  if (name.startsWith('pg_') || name === 'information_schema') return `${option} must not be "${name}": that schema belongs to PostgreSQL`;
  return undefined;
}

/** The `schema` option of the PostgreSQL adapters, checked as above. */
export const SchemaOption = v.optional(
  v.pipe(
    v.string('schema must be a string'),
    v.rawCheck(({ dataset, addIssue }) => {
      const problem = dataset.typed ? schemaNameProblem(dataset.value, 'schema') : undefined;
      if (problem) addIssue({ message: problem });
    }),
  ),
  defaultSchema,
);
