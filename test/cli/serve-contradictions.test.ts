/**
 * `marketkit serve` refuses options that cannot hold together (docs/cli.md, "serve"): exit code 2,
 * a message that names both and which to drop, and nothing started or written.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../fixtures/cli.js';

const cases: { name: string; args: string[]; env?: Record<string, string>; message: RegExp }[] = [
  { name: '--memory with --data-dir', args: ['--memory', '--data-dir', 'DIR'], message: /--memory keeps everything in this process and nothing on disk, and --data-dir names a data directory: drop --data-dir, or drop --memory/ },
  { name: '--memory with MARKETKIT_DATA_DIR', args: ['--memory'], env: { MARKETKIT_DATA_DIR: 'DIR' }, message: /and MARKETKIT_DATA_DIR names a data directory: unset MARKETKIT_DATA_DIR, or drop --memory/ },
  { name: '--memory with --sqlite-driver', args: ['--memory', '--sqlite-driver', 'better-sqlite3'], message: /--memory uses no SQLite, and --sqlite-driver picks a SQLite driver: drop --sqlite-driver/ },
  { name: 'a database with --sqlite-driver', args: ['--database-url', 'postgres://u:p@127.0.0.1:1/db', '--blobs', 's3', '--sqlite-driver', 'auto'], message: /with a database the data is in PostgreSQL, and --sqlite-driver picks a SQLite driver: drop --sqlite-driver/ },
  { name: '--site-url with --allowed-host', args: ['--memory', '--site-url', 'https://market.example', '--allowed-host', 'other.example'], message: /--site-url fixes every URL the server builds, so --allowed-host .* would never apply: drop --allowed-host, or drop --site-url/ },
  { name: '--self-sign-up with --no-dashboard', args: ['--memory', '--no-dashboard', '--self-sign-up'], message: /--self-sign-up opens a sign-up page on the dashboard, and --no-dashboard turns the dashboard off: drop one of them/ },
  { name: '--memory with --database-url', args: ['--memory', '--database-url', 'postgres://u:p@127.0.0.1:1/db'], message: /--memory keeps everything in this process, and --database-url keeps it in PostgreSQL: give one of them/ },
];

for (const { name, args, env, message } of cases) {
  test(`serve refuses ${name} with exit code 2, naming which to drop`, async (t) => {
    const dir = join(tempDir(t), 'data');
    const run = await runCli(['serve', '--port', '0', ...args.map((arg) => (arg === 'DIR' ? dir : arg))], Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, v === 'DIR' ? dir : v])));
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, message);
    assert.equal(run.stdout, '', 'nothing served');
    assert.equal(existsSync(dir), false, 'no data directory made');
  });
}
