/**
 * The once-a-minute reports of an outage count their minute on the marketplace's clock (the clock
 * port, issue 45 point 6): onError hears of a store that cannot be reached once a minute, and a
 * limiter failing open tells its onError once a minute, both by the time they are given; a clock
 * set back tells again rather than staying silent until it catches up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manualClock } from '../../adapters/memory/index.js';
import { outagesOncePerMinute, StorageUnavailableError } from '../../core/errors.js';
import { slidingLimits, whenStoreDown } from '../../core/rate-limits.js';

test("onError hears of a store that cannot be reached once a minute of the marketplace's clock", () => {
  const clock = manualClock(Date.parse('2026-01-15T12:00:00.000Z'));
  const heard: unknown[] = [];
  const onError = outagesOncePerMinute((error) => heard.push(error), clock);
  const down = new StorageUnavailableError('the database is down');
  onError(down, {});
  onError(down, {});
  assert.equal(heard.length, 1);
  clock.advance(59_999);
  onError(down, {});
  assert.equal(heard.length, 1, 'within the minute');
  clock.advance(1);
  onError(down, {});
  assert.equal(heard.length, 2, 'a minute later');
  clock.set(clock.now() - 3_600_000);
  onError(down, {});
  assert.equal(heard.length, 3, 'a clock set back tells again');
  onError(new Error('a bug'), {});
  onError(new Error('another'), {});
  assert.equal(heard.length, 5, 'other errors pass as they come');
});

test("a limiter failing open tells its onError once a minute of the time it is given, and lets the request through", () => {
  const heard: Error[] = [];
  const open = whenStoreDown('open', (error) => heard.push(error));
  const limit = slidingLimits().read;
  const down = new StorageUnavailableError('redis is down');
  const start = Date.parse('2026-01-15T12:00:00.000Z');
  assert.equal(open(down, limit, start), limit.untouched);
  open(down, limit, start + 59_999);
  assert.equal(heard.length, 1);
  open(down, limit, start + 60_000);
  assert.equal(heard.length, 2);
  open(down, limit, start);
  assert.equal(heard.length, 3, 'a clock set back tells again');
  assert.throws(() => whenStoreDown('closed')(down, limit, start), StorageUnavailableError);
});
