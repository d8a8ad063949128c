import * as v from 'valibot';
import type { PostgresStorageOptions } from '../adapters/postgres/index.js';
import { givenFlag, UsageError } from './args.js';

/** What serve's flags set of the listing storage on PostgreSQL. */
export type PostgresTuning = Pick<PostgresStorageOptions, 'poolSize' | 'statementTimeoutMs' | 'maxStalenessMs'>;

/**
 * `marketkit serve` on a database: the pool and the read cache's mode (docs/deploy.md). Each flag
 * has an environment variable (the flag wins); left out, the adapter's default applies. Given
 * without a database, they are refused: they would do nothing.
 */
export const postgresFlags = {
  options: {
    'max-staleness': { type: 'string' },
    'pool-size': { type: 'string' },
    'statement-timeout': { type: 'string' },
  },
  help: [
    [
      '--max-staleness <ms>',
      'With a database: let the read cache be at most this stale (LISTEN/NOTIFY and a poll) instead of asking the database on every request; default strict: every request sees every write acknowledged before it (env MARKETKIT_MAX_STALENESS_MS; at least 10; docs/deploy.md).',
    ],
    ['--pool-size <n>', 'With a database: the most connections this instance opens for listings (env MARKETKIT_POOL_SIZE; default 10; Creator Studio has 4 of its own).'],
    ['--statement-timeout <ms>', 'With a database: how long one statement may run before the server cancels it; 0 leaves the server’s setting (env MARKETKIT_STATEMENT_TIMEOUT_MS; default 30000).'],
  ] as [string, string][],
  entries: {
    'max-staleness': v.optional(whole('max-staleness', 10)),
    'pool-size': v.optional(whole('pool-size', 1)),
    'statement-timeout': v.optional(whole('statement-timeout', 0)),
  },
  /** The values the environment gives, as the command's defaults (a flag overrides each). */
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    const variables = {
      'max-staleness': env.MARKETKIT_MAX_STALENESS_MS,
      'pool-size': env.MARKETKIT_POOL_SIZE,
      'statement-timeout': env.MARKETKIT_STATEMENT_TIMEOUT_MS,
    };
    return Object.fromEntries(Object.entries(variables).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
  },
  /** The parsed flags as postgresStorage's options; a UsageError when one is given without a database. */
  toOptions(
    argv: readonly string[],
    values: { 'max-staleness'?: number; 'pool-size'?: number; 'statement-timeout'?: number },
    database: boolean,
  ): PostgresTuning {
    if (!database) {
      const stray = (['max-staleness', 'pool-size', 'statement-timeout'] as const).find((flag) => givenFlag(argv, flag));
      if (stray) throw new UsageError(`--${stray} sets the PostgreSQL database's pool or cache, and there is none: give --database-url, or leave out --${stray}`);
      return {};
    }
    const options: PostgresTuning = {};
    if (values['max-staleness'] !== undefined) options.maxStalenessMs = values['max-staleness'];
    if (values['pool-size'] !== undefined) options.poolSize = values['pool-size'];
    if (values['statement-timeout'] !== undefined) options.statementTimeoutMs = values['statement-timeout'];
    return options;
  },
} as const;

function whole(flag: string, min: number) {
  return v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(Number),
    v.check((n) => Number.isSafeInteger(n) && n >= min, `${flag} must be a whole number of at least ${min}`),
  );
}
