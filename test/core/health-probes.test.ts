/**
 * The health and readiness probes take their time from the clock port (issue 45, point 6): a probe
 * that does not answer fails once the marketplace's clock has moved its limit, within a tick (100 ms);
 * a clock set back starts the wait again rather than holding the probe for the step; and each
 * clock's probes keep their own time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage, manualClock } from '../../adapters/memory/index.js';
import { memoryRateLimiter } from '../../core/rate-limits.js';
import { checkHealth, checkReadiness } from '../../core/operations/health.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<void>(() => {});

/** The probe's outcome once it has one, polled: undefined while it is out. */
function watched<T>(promise: Promise<T>): () => T | undefined {
  let outcome: T | undefined;
  void promise.then((value) => (outcome = value));
  return () => outcome;
}

function portsAt(clock: ReturnType<typeof manualClock>, hanging: 'storage' | 'blobs') {
  const storage = memoryStorage();
  const blobs = memoryBlobs();
  return {
    storage: hanging === 'storage' ? { ...storage, ping: never } : storage,
    blobs: hanging === 'blobs' ? Object.assign(Object.create(blobs), { ping: never }) : blobs,
    rateLimiter: memoryRateLimiter(),
    clock,
  };
}

test('a readiness probe that does not answer fails once the clock has moved a second, not before', async () => {
  const clock = manualClock(Date.parse('2026-01-15T12:00:00.000Z'));
  const outcome = watched(checkReadiness(portsAt(clock, 'blobs')));
  await pause(250);
  assert.equal(outcome(), undefined, 'the clock stands: the probe is still out');
  clock.advance(1000);
  await pause(250);
  // Late is 'slow' (not an error: /readyz keeps a store that answered before ready for a few seconds; core/http/probes.ts).
  assert.deepEqual(outcome(), { ready: false, checks: { storage: 'ok', blobs: 'slow', limiter: 'ok' } });
});

test('a clock set back starts the wait again: the probe fails its limit after the new time, not an hour later', async () => {
  const clock = manualClock(Date.parse('2026-01-15T12:00:00.000Z'));
  const outcome = watched(checkHealth(portsAt(clock, 'storage'), { version: 'test' }));
  await pause(150);
  clock.set(clock.now() - 3_600_000);
  await pause(250);
  clock.advance(1999);
  await pause(250);
  assert.equal(outcome(), undefined, 'within two seconds of the new time');
  clock.advance(1);
  await pause(250);
  assert.deepEqual(outcome()?.checks, { storage: 'error', blobs: 'ok' });
});

test("each clock's probes keep their own time: moving one clock fails none of another's", async () => {
  const first = manualClock(Date.parse('2026-01-15T12:00:00.000Z'));
  const second = manualClock(Date.parse('2026-01-15T12:00:00.000Z'));
  const one = watched(checkHealth(portsAt(first, 'storage'), { version: 'test' }));
  const other = watched(checkHealth(portsAt(second, 'storage'), { version: 'test' }));
  await pause(50);
  first.advance(2000);
  await pause(250);
  assert.deepEqual(one()?.checks, { storage: 'error', blobs: 'ok' });
  assert.equal(other(), undefined);
  second.advance(2000);
  await pause(250);
  assert.deepEqual(other()?.checks, { storage: 'error', blobs: 'ok' });
});
