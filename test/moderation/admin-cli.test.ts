import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, assetWithFile, putSigned } from '../fixtures/server.js';
import { runAdmin } from '../../cli/admin.js';

test('marketkit admin moderates a running server’s listings through its data directory, and the seller sees the reason', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const token = server.info.dev_seller.token!;
  const seller = as(server.info, token);
  const admin = async (...args: string[]) => {
    const run = await runCli(['admin', ...args, '--data-dir', dir]);
    assert.equal(run.code, 0, `admin ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  const adminJson = async (...args: string[]) => JSON.parse(await admin(...args, '--json'));

  // draft -> pending -> published -> archived
  const first = await assetWithFile(server.info, token);
  await seller.post(`/assets/${first.id}/submit`);
  const queue = await admin('queue');
  assert.match(queue, /^1 waiting for review \(oldest first\):/);
  assert.match(queue, new RegExp(`${first.id}  pending`));
  assert.equal((await adminJson('approve', first.id)).status, 'published');
  assert.equal((await seller.get(`/assets/${first.id}`)).body.status, 'published', 'the running server sees it at once');
  assert.match(await admin('archive', first.id), new RegExp(`${first.id}  archived`));

  // draft -> pending -> changes_requested -> pending -> rejected
  const second = await assetWithFile(server.info, token);
  await seller.post(`/assets/${second.id}/submit`);
  await admin('request-changes', second.id, '--reason', 'Add a preview image.');
  const sentBack = (await seller.get(`/assets/${second.id}`)).body;
  assert.equal(sentBack.status, 'changes_requested');
  assert.equal(sentBack.review.reason, 'Add a preview image.');
  await seller.post(`/assets/${second.id}/submit`);
  await admin('reject', second.id, '--reason', 'Not original work.');
  const rejected = (await seller.get(`/assets/${second.id}`)).body;
  assert.equal(rejected.status, 'rejected');
  assert.equal(rejected.review.reason, 'Not original work.');
  assert.match(await admin('queue'), /^0 waiting for review\./);

  // Refusals: the same codes as the HTTP surface, the field named as its flag, exit 1 or 2.
  // Two at a time (the machine's cores): none of them changes anything.
  const [again, noReason] = await Promise.all([runCli(['admin', 'approve', first.id, '--data-dir', dir]), runCli(['admin', 'reject', second.id, '--data-dir', dir])]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /\(INVALID_STATUS\)/);
  assert.equal(noReason.code, 2);
  assert.match(noReason.stderr, /--reason is required/);
  const [missingId, unknown] = await Promise.all([runCli(['admin', 'approve', '--data-dir', dir]), runCli(['admin', 'frobnicate', '--data-dir', dir])]);
  assert.equal(missingId.code, 2);
  assert.match(missingId.stderr, /admin approve takes <id>/);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown action "admin frobnicate"/);

  // approve-version --release-at (in this process, on the same data directory): a past time refused
  // naming the flag; a future one schedules the version for it while the running server serves the live file.
  const third = await assetWithFile(server.info, token);
  await seller.post(`/assets/${third.id}/submit`);
  assert.equal((await adminJson('approve', third.id)).status, 'published');
  const version = (await seller.post(`/assets/${third.id}/versions`, { version: '1.1.0' })).body;
  const bytes = new TextEncoder().encode('PK the second version');
  const issued = (await seller.post(`/assets/${third.id}/versions/${version.id}/upload-url`, { filename: 'v2.zip', file_size: bytes.byteLength })).body;
  assert.equal((await putSigned(issued.signed_url, bytes, 'application/zip')).status, 200);
  assert.equal((await seller.post(`/assets/${third.id}/versions/${version.id}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.byteLength })).status, 200);
  assert.equal((await seller.post(`/assets/${third.id}/versions/${version.id}/submit`)).status, 200);
  const approveAt = async (at: string) => {
    const out: string[] = [];
    await runAdmin(['approve-version', version.id, '--release-at', at, '--data-dir', dir, '--json'], {}, (line) => out.push(line));
    return JSON.parse(out.join('\n'));
  };
  await assert.rejects(approveAt(new Date(Date.now() - 60_000).toISOString()), /--release-at must be in the future/);
  const at = new Date(Date.now() + 3_600_000).toISOString();
  assert.deepEqual(Object.entries(await approveAt(at)).filter(([key]) => key === 'status' || key === 'release_at'), [['status', 'scheduled'], ['release_at', at]]);
  const listing = (await seller.get(`/assets/${third.id}`)).body;
  assert.deepEqual([listing.version, listing.pending_version.status], ['1.0.0', 'scheduled'], 'the running server serves the live file until then');
});

test('marketkit admin manages accounts, categories and tokens; --help describes every action', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const run = (...args: string[]) => runCli(['admin', ...args, '--data-dir', dir]);
  const json = async (...args: string[]) => {
    const result = await run(...args, '--json');
    assert.equal(result.code, 0, `admin ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };

  // Storage use: what the account's uploads hold, confirmed or waiting for confirm.
  const seller = as(server.info, server.info.dev_seller.token!);
  const draft = await seller.post('/assets', { title: 'Stored Pack', slug: 'stored-pack' });
  const issued = await seller.post(`/assets/${draft.body.id}/upload-url`, { filename: 'pack.zip' });
  assert.equal((await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(1234) })).status, 200);
  const used = await json('account', 'dev-seller');
  assert.deepEqual([used.storage_bytes, used.storage_quota_bytes], [1234, null]);
  assert.match((await run('account', 'dev-seller')).stdout, /^dev-seller +[0-9a-f-]{36}  seller approved, payouts connected, plan pro, 1234 bytes stored$/m);

  const account = await json('update-account', 'dev-seller', '--is-restricted', 'true', '--plan-features', 'scheduled_publishing', '--plan-features', 'analytics');
  assert.equal(account.is_restricted, true);
  assert.deepEqual(account.plan_features, ['scheduled_publishing', 'analytics']);
  const refused = await as(server.info, server.info.dev_seller.token!).post('/assets', { title: 'Walls', slug: 'walls' });
  assert.equal(refused.status, 403, 'a restricted seller cannot create, on the running server');
  const badBoolean = await run('update-account', 'dev-seller', '--is-restricted', 'maybe');
  assert.equal(badBoolean.code, 2);
  assert.match(badBoolean.stderr, /--is-restricted must be true or false/);

  const category = await json('create-category', '--slug', 'props', '--name', 'Props');
  assert.equal((await json('rename-category', category.id, '--name', 'Animated props')).name, 'Animated props');
  assert.deepEqual((await json('categories')).data.map((c: { slug: string }) => c.slug), ['props']);

  const [token] = (await json('tokens', 'dev-seller')).data;
  assert.equal((await json('revoke-token', 'dev-seller', token.id)).id, token.id);
  assert.equal((await as(server.info, server.info.dev_seller.token!).get('/me')).status, 401, 'revoked for the running server');

  const help = await runCli(['admin', '--help']);
  assert.equal(help.code, 0);
  const actions = ['queue', 'approve', 'reject', 'request-changes', 'archive', 'release-due', 'account', 'update-account', 'categories', 'create-category', 'rename-category', 'tokens', 'revoke-token'];
  for (const action of actions) assert.match(help.stdout, new RegExp(`^  ${action} `, 'm'), action);
  // Each action's own help, through the CLI's admin entry in this process: the spawned `admin --help`
  // above proves the binary wires it; thirteen more processes (36 s under load) would prove nothing more.
  for (const action of actions) {
    const lines: string[] = [];
    await runAdmin([action, '--help'], {}, (line) => lines.push(line));
    assert.match(lines.join('\n'), new RegExp(`Usage: marketkit admin ${action}`), action);
  }
  const approveVersionHelp: string[] = [];
  await runAdmin(['approve-version', '--help'], {}, (line) => approveVersionHelp.push(line));
  assert.match(approveVersionHelp.join('\n'), /Usage: marketkit admin approve-version <id> \[--release-at <text>\]/);
});

test('serve --auto-approve publishes submitted listings at once and says so; without it they wait for review', async (t) => {
  const auto = await startCliServer(['--memory', '--auto-approve']);
  t.after(() => auto.stop('SIGINT'));
  const token = auto.info.dev_seller.token!;
  const { id } = await assetWithFile(auto.info, token);
  assert.equal((await as(auto.info, token).post(`/assets/${id}/submit`)).body.status, 'published');

  // Both banners at once (the machine's two cores): each is a server of its own.
  const banners = [
    [['--auto-approve'], /Review {6}auto-approve: submitted listings are published at once/],
    [[], /Review {6}submitted listings wait for a moderator/],
  ] as const;
  await Promise.all(banners.map(async ([flags, said]) => {
    const text = await startCli(['serve', '--memory', '--port', '0', ...flags], (stdout) => stdout.includes('Stop with Ctrl-C.'));
    t.after(() => text.stop('SIGINT'));
    assert.match(text.stdout(), said);
  }));
});

test('marketkit admin create-account adds a seller to a standalone server, accounts lists them, and token create gives it a working token', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const created = await runCli(['admin', 'create-account', '--username', 'second-seller', '--payouts-connected', 'true', '--subscription-tier', 'pro', '--data-dir', dir]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^second-seller\s+[0-9a-f-]{36}  seller approved, payouts connected, plan pro, 0 bytes stored$/m);
  assert.match(created.stdout, /A token for it: npx marketkit token create --account second-seller --all-scopes/);
  // Two at a time (the machine's cores): the refusals write nothing, and nothing else writes 'applicant'.
  const [, again] = await Promise.all([
    runCli(['admin', 'create-account', '--username', 'applicant', '--seller-status', 'pending', '--is-suspended', 'true', '--data-dir', dir]),
    runCli(['admin', 'create-account', '--username', 'second-seller', '--data-dir', dir]),
  ]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /The username "second-seller" is taken\. \(CONFLICT\)/);
  const bad = await runCli(['admin', 'create-account', '--username', 'has space', '--data-dir', dir]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--username /);

  const listed = await runCli(['admin', 'accounts', '--data-dir', dir]);
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split('\n');
  assert.equal(lines[0], '3 accounts:');
  assert.deepEqual(lines.slice(1).map((line) => line.trim().split(/\s+/)[0]), ['applicant', 'dev-seller', 'second-seller']);
  assert.match(lines[1]!, /seller pending, no payouts, plan free, SUSPENDED/);
  const json = JSON.parse((await runCli(['admin', 'accounts', '--limit', '1', '--offset', '2', '--json', '--data-dir', dir])).stdout);
  assert.deepEqual([json.total, json.data.map((a: { username: string }) => a.username)], [3, ['second-seller']]);

  const token = await runCli(['token', 'create', '--account', 'second-seller', '--all-scopes', '--json', '--data-dir', dir]);
  assert.equal(token.code, 0, token.stderr);
  const seller = as(server.info, JSON.parse(token.stdout).token);
  assert.equal((await seller.get('/me')).body.username, 'second-seller', 'the running server knows the new seller at once');
  assert.equal((await seller.post('/assets', { title: 'Second pack', slug: 'second-pack' })).status, 201);
});
