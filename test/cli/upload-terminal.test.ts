/**
 * `marketkit upload` on a terminal, through a pseudo-terminal (util-linux's script): the progress
 * bar redrawn in place with its percent, rate and ETA, and the stored digest at the end; with
 * --json on the same terminal, JSON lines that each parse.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bigFile } from '../fixtures/big-file.js';
import { marketkitCommand, startCliServer, tempDir } from '../fixtures/cli.js';
import { needs, partPath } from '../fixtures/parts.js';
import { as, validAsset } from '../fixtures/server.js';

const { test } = needs('script');
const root = new URL('../../', import.meta.url).pathname;

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The command under `script`, whose stdout is then a terminal; resolves with what the terminal received. */
function onTerminal(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const command = [...marketkitCommand('node'), ...args].map(quote).join(' ');
  const child = spawn(partPath('script'), ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, ...env, COLUMNS: '100' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

test('on a terminal marketkit upload draws a bar with percent, rate and ETA in place; --json there gives JSON lines', async (t) => {
  const dir = tempDir(t, 'marketkit-upload-tty-');
  const server = await startCliServer(['--data-dir', join(dir, 'data')]);
  t.after(() => server.stop('SIGKILL'));
  const seller = as(server.info, server.info.dev_seller.token!);
  const asset = (await seller.post('/assets', validAsset())).body;
  const file = bigFile(dir, 24);
  const env = { MARKETKIT_API_TOKEN: server.info.dev_seller.token! };
  const args = ['upload', asset.id, file.path, '--url', server.info.url, '--state', join(dir, 'state.json'), '--resumable-threshold', '1MiB', '--chunk-size', '1MiB'];

  const bar = await onTerminal(args, env);
  assert.equal(bar.code, 0, bar.output);
  const redraws = bar.output.split('\r').filter((part) => /^\[[#-]+\] /.test(part));
  assert.ok(redraws.length >= 2, `the bar is redrawn in place: ${JSON.stringify(bar.output.slice(0, 400))}`);
  assert.match(bar.output, /\[#+\] 100\.0% {2}24\.0 MiB of 24\.0 MiB {2}[\d.]+ (KiB|MiB|GiB)\/s {2}ETA 0:00\x1b\[K/);
  assert.ok(redraws.some((part) => /\d+\.\d% .* [\d.]+ (B|KiB|MiB|GiB)\/s {2}ETA \d+:\d\d/.test(part)), 'a rate and an ETA while it runs');
  assert.match(bar.output, new RegExp(`\\r?\\nConfirmed pack\\.bin \\(24\\.0 MiB\\) as the file of listing ${asset.id}\\.\\r?\\nsha256 ${file.sha256}\\r?\\n`));
  assert.ok(!bar.output.includes('{"event"'), 'no JSON on a terminal without --json');

  const json = await onTerminal([...args, '--json'], env);
  assert.equal(json.code, 0, json.output);
  const parsed = json.output.split(/\r?\n/).filter(Boolean).map((line) => JSON.parse(line));
  assert.ok(parsed.filter((line) => line.event === 'progress').length >= 2);
  assert.equal(parsed.at(-1).event, 'confirmed');
  assert.equal(parsed.at(-1).sha256, file.sha256);
});
