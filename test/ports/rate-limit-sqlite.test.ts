/**
 * The rate-limiter port suite on the SQLite limiter, with a second connection on the same file as
 * the other instance (another process would have one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { sqliteRateLimiter, type SqliteRateLimiter } from '../../adapters/sqlite/index.js';
import { runRateLimitSuite } from '../../conformance/index.js';

const dir = mkdtempSync(join(tmpdir(), 'marketkit-rate-suite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const paths = new WeakMap<SqliteRateLimiter, string>();
let files = 0;

runRateLimitSuite<SqliteRateLimiter>({
  test,
  prefix: 'sqlite: ',
  create: async (limits) => {
    const path = join(dir, `limits-${++files}.db`);
    const limiter = await sqliteRateLimiter({ path, limits });
    paths.set(limiter, path);
    return limiter;
  },
  dispose: (limiter) => limiter.close(),
  capabilities: {
    openPeer: async (limiter, limits) => sqliteRateLimiter({ path: paths.get(limiter)!, limits }),
  },
});
