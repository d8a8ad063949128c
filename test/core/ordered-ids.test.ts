import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webCryptoIds } from '../../core/index.js';

const version7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const millisecondOf = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

test('ordered ids: 100,000 in a burst are version-7 UUIDs, all different, each sorting after the one before', () => {
  const make = webCryptoIds.orderedUuid!;
  const before = Date.now();
  // More than the 4,096 a millisecond's counter holds: the burst runs through the counter's overflow.
  const ids = Array.from({ length: 100_000 }, () => make());
  for (const id of ids) assert.match(id, version7);
  assert.equal(new Set(ids).size, ids.length);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} sorts before ${ids[i]}`);
  assert.ok(millisecondOf(ids[0]!) >= before, 'stamped with the time it was made');
  // uuid() stays random (version 4): request ids and upload folders must not be guessed.
  assert.match(webCryptoIds.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('ordered ids keep their order when the clock steps back', (t) => {
  const make = webCryptoIds.orderedUuid!;
  const first = make();
  t.mock.method(Date, 'now', () => millisecondOf(first) - 60_000);
  const later = Array.from({ length: 10 }, () => make());
  assert.ok(first < later[0]!, `${first} sorts before ${later[0]} made a minute "earlier"`);
  for (let i = 1; i < later.length; i++) assert.ok(later[i - 1]! < later[i]!);
});
