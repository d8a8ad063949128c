/**
 * Group commit on SQLite acknowledges a create only once its WAL frames are on disk: the order of
 * the server's own system calls under load, read with strace. A kill (group-commit-crash.test.ts)
 * cannot show this: after SIGKILL the kernel still writes what the process gave it; only a power
 * loss takes what was never synced, and that cannot be staged here. So: `marketkit serve` on a
 * data directory (synchronous=FULL, the default) under creates from many clients at once, traced;
 * for every 201 answered, the first WAL write that holds its slug (its group's COMMIT) must be
 * followed by an fsync or fdatasync of the WAL file that began after that write and returned before
 * the answer was written. The group commits at NORMAL and syncs off the event loop
 * (adapters/sqlite/wal-sync.ts); answering before that sync completed fails here.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { needs, partPath } from '../fixtures/parts.js';

const { test } = needs('strace');

interface Call {
  pid: number;
  name: string;
  started: number;
  ended: number;
  text: string;
}

/**
 * strace -f -ttt -T -y output as one entry per call: a call split across threads ("<unfinished
 * ...>" then "<... name resumed>") is joined, its start from the first line and its end from the
 * duration. `-ttt` gives the time a call began, `-T` the time spent inside it.
 */
function parseTrace(trace: string): Call[] {
  const calls: Call[] = [];
  const unfinished = new Map<string, { started: number; text: string }>();
  for (const line of trace.split('\n')) {
    const match = /^(?:\[pid\s+)?(\d+)\]?\s+(\d+\.\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const [, pidText, timeText, rest] = match;
    const pid = Number(pidText);
    const at = Number(timeText);
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(rest!);
    if (resumed) {
      const begun = unfinished.get(`${pid} ${resumed[1]}`);
      if (!begun) continue;
      unfinished.delete(`${pid} ${resumed[1]}`);
      const took = /<(\d+\.\d+)>\s*$/.exec(resumed[2]!);
      calls.push({ pid, name: resumed[1]!, started: begun.started, ended: took ? begun.started + Number(took[1]) : at, text: begun.text + resumed[2] });
      continue;
    }
    const call = /^(\w+)\((.*)$/.exec(rest!);
    if (!call) continue;
    if (rest!.endsWith('<unfinished ...>')) {
      unfinished.set(`${pid} ${call[1]}`, { started: at, text: rest! });
      continue;
    }
    const took = /<(\d+\.\d+)>\s*$/.exec(rest!);
    calls.push({ pid, name: call[1]!, started: at, ended: at + Number(took?.[1] ?? 0), text: rest! });
  }
  return calls.sort((a, b) => a.started - b.started);
}

test('SQLite group commit: every create answered 201 had its WAL frames synced before the answer was written', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const token = server.info.dev_seller.token!;
  const traceFile = join(dir, 'trace.txt');
  // Every thread (the event loop and libuv's pool, where the sync runs), each call's start and duration, descriptors as paths.
  const strace = spawn(partPath('strace'), ['-f', '-ttt', '-T', '-y', '-s', '16384', '-e', 'trace=pwrite64,fsync,fdatasync,writev,write', '-o', traceFile, '-p', String(server.pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let straceErrors = '';
  strace.stderr!.on('data', (chunk) => (straceErrors += chunk));
  const stopped = new Promise((resolve) => strace.once('exit', resolve));
  t.after(() => strace.kill('SIGKILL'));
  // strace says "Process N attached" once it traces; wait for that before loading.
  const started = Date.now();
  while (!/attached/.test(straceErrors) && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.match(straceErrors, /attached/, `strace did not attach: ${straceErrors}`);

  const answered: string[] = [];
  const client = async (n: number) => {
    for (let i = 0; i < 12; i++) {
      const slug = `synced-${n}-${i}-${Math.random().toString(36).slice(2, 8)}`;
      const response = await fetch(`${server.info.url}/api/v1/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Synced Pack', slug }),
      });
      assert.equal(response.status, 201, await response.text());
      await response.arrayBuffer().catch(() => {});
      answered.push(slug);
    }
  };
  await Promise.all(Array.from({ length: 12 }, (_, n) => client(n)));
  strace.kill('SIGINT');
  await stopped;

  const calls = parseTrace(readFileSync(traceFile, 'utf8'));
  const walWrites = calls.filter((call) => call.name === 'pwrite64' && /-wal>/.test(call.text));
  const walSyncs = calls.filter((call) => (call.name === 'fsync' || call.name === 'fdatasync') && /-wal>/.test(call.text));
  const answers = calls.filter((call) => (call.name === 'writev' || call.name === 'write') && /socket:/.test(call.text) && /HTTP\/1\.1 201/.test(call.text));
  assert.ok(walSyncs.length > 0, 'the WAL was synced');
  const unsynced: string[] = [];
  for (const slug of answered) {
    // Each slug has a random part: it is in this create's answer and frames only.
    const answer = answers.find((call) => call.text.includes(slug));
    assert.ok(answer, `the 201 for ${slug} is in the trace`);
    const frame = walWrites.find((call) => call.text.includes(slug));
    assert.ok(frame, `a WAL write holds ${slug}`);
    assert.ok(frame.started < answer.started, `${slug} was written to the WAL before it was answered`);
    const synced = walSyncs.some((sync) => sync.started >= frame.ended && sync.ended <= answer.started);
    if (!synced) unsynced.push(slug);
  }
  assert.deepEqual(unsynced, [], `of ${answered.length} creates answered 201, these were answered before a sync of the WAL after their frames`);
  // Fewer syncs than creates: the group commit shared them (the point of it).
  assert.ok(walSyncs.length < answered.length, `${walSyncs.length} WAL syncs for ${answered.length} creates`);
});
