/**
 * `marketkit serve`'s rate-limit flags and variables (docs/security.md, "Rate limits"): each limit
 * is enforced as given, shown in the banner and --help, and a bad value stops the start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCli, startCliServer } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

test('--rate-limit-write 3/60 lets three writes through and answers the fourth 429 with the limit in its headers', async (t) => {
  const server = await startCliServer(['--memory', '--rate-limit-write', '3/60']);
  t.after(() => server.stop('SIGKILL'));
  const client = as(server.info, server.info.dev_seller.token);
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < 4; i++) {
    last = await client.post('/assets', { title: `Limited ${i}`, slug: `limited-${i}` });
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [201, 201, 201, 429]);
  assert.equal(last!.body.code, 'RATE_LIMITED');
  assert.equal(last!.headers.get('ratelimit-limit'), '3');
  assert.match(last!.headers.get('retry-after') ?? '', /^\d+$/);
  assert.equal((await client.get('/assets')).status, 200, 'reads keep their own budget');
});

test('MARKETKIT_RATE_LIMIT_READ=2/60 from the environment is enforced, a flag wins over it, and the banner shows what is in force', async (t) => {
  const fromEnv = await startCliServer(['--memory'], { MARKETKIT_RATE_LIMIT_READ: '2/60' });
  t.after(() => fromEnv.stop('SIGKILL'));
  const client = as(fromEnv.info, fromEnv.info.dev_seller.token);
  assert.deepEqual([(await client.get('/me')).status, (await client.get('/me')).status, (await client.get('/me')).status], [200, 200, 429]);

  const banner = await startCli(['serve', '--memory', '--port', '0', '--rate-limit-read', '5/10'], (out) => out.includes('Stop with Ctrl-C.'), { MARKETKIT_RATE_LIMIT_READ: '2/60', MARKETKIT_RATE_LIMIT_UPLOAD: '7/30' });
  t.after(() => banner.stop('SIGKILL'));
  assert.match(banner.stdout(), /^ {2}Rate limits read 5\/10 s, write 300\/60 s, upload 7\/30 s per token; failed authentications 20\/60 s, MCP without a token 120\/60 s per address; admin 600\/60 s/m);
});

test('serve --help lists every rate-limit flag with its variable and default', async () => {
  const help = await runCli(['serve', '--help']);
  assert.equal(help.code, 0);
  for (const [flag, variable, fallback] of [
    ['read', 'READ', '1200/60'],
    ['write', 'WRITE', '300/60'],
    ['upload', 'UPLOAD', '120/60'],
    ['mcp-unauthenticated', 'MCP_UNAUTHENTICATED', '120/60'],
    ['admin', 'ADMIN', '600/60'],
  ]) {
    assert.match(help.stdout, new RegExp(`--rate-limit-${flag} <n/s> .*env MARKETKIT_RATE_LIMIT_${variable}; default ${fallback}`), flag);
  }
});

test('a bad rate limit stops the start with exit code 2, naming the flag or the variable', async () => {
  for (const [args, env, named] of [
    [['--rate-limit-write', '300'], {}, /rate-limit-write must be <limit>\/<seconds>, such as 300\/60/],
    [['--rate-limit-read', '0/60'], {}, /rate-limit-read must have a limit and a window above 0/],
    [[], { MARKETKIT_RATE_LIMIT_UPLOAD: 'lots' }, /rate-limit-upload must be <limit>\/<seconds>/],
  ] as const) {
    const run = await runCli(['serve', '--memory', '--port', '0', ...args], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, named);
  }
});
