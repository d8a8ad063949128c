/**
 * The testing kit's cost per test: `reset()` plus one create-and-get through the in-process
 * `fetch`, on a seed of 10 accounts and 100 listings (half of them published with a file and an
 * image). Target: at least 5,000 tests per second. Set beside a baseline measured in the same run:
 * the same two fetch-shaped round trips answered by a bare `new Response` (no marketplace), so the
 * ratio says what the kit adds to the least a fetch-based test can cost here.
 *
 * Run: npx tsx bench/testing.bench.ts [--tests 3000] [--rounds 4]
 */
import './help.js';
import { parseArgs } from 'node:util';
import { createTestMarketplace } from '../testing/index.js';

const { values } = parseArgs({ options: { tests: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '4' }, seconds: { type: 'string' }, connections: { type: 'string' } } });
const tests = Number(values.tests);
const rounds = Number(values.rounds);

const mk = createTestMarketplace({
  seed: {
    accounts: Array.from({ length: 10 }, (_, i) => ({ username: `bench-${i}`, payouts_connected: true })),
    assets: Array.from({ length: 100 }, (_, i) => ({
      owner: `bench-${i % 10}`,
      title: `Seeded asset ${i}`,
      slug: `seeded-asset-${i}`,
      ...(i % 2 ? { status: 'published' as const, file: true as const, images: 1 } : {}),
    })),
  },
});
const seller = await mk.account('bench-0');
const body = JSON.stringify({ title: 'Castle Pack', slug: 'castle-pack' });
const postInit = { method: 'POST', headers: { ...seller.headers, 'content-type': 'application/json' }, body };
const getInit = { headers: seller.headers };

/** One test's worth: back to the seed, create a listing, read it back. */
async function kitTest(): Promise<void> {
  await mk.reset();
  const created = await mk.fetch(`${mk.api}/assets`, postInit);
  const { id } = (await created.json()) as { id: string };
  const read = await mk.fetch(`${mk.api}/assets/${id}`, getInit);
  if (read.status !== 200) throw new Error(`GET answered ${read.status}`);
  await read.json();
}

// The baseline: the same Request/Response work with nothing behind it.
const bare = async (request: Request) => {
  if (request.body) await request.text();
  return new Response('{"id":"00000000-0000-4000-8000-000000000000","title":"Castle Pack"}', { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });
};
async function baselineTest(): Promise<void> {
  const created = await bare(new Request(`${mk.api}/assets`, postInit));
  const { id } = (await created.json()) as { id: string };
  const read = await bare(new Request(`${mk.api}/assets/${id}`, getInit));
  await read.json();
}

async function perSecond(run: () => Promise<void>, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await run();
  return count / ((performance.now() - started) / 1000);
}

// Alternating rounds, so that the load of a shared machine falls on both sides alike.
// Warm-up: V8 needs a few thousand calls before the kit's path is fully optimized (the first
// thousand tests run at about two thirds of the speed that follows).
for (let i = 0; i < 5000; i++) {
  await baselineTest();
  await kitTest();
}
const resetOnly = await perSecond(() => mk.reset(), tests * 4);
console.log(`Testing kit, seed of 10 accounts (+8 fixtures) and 100 listings; ${rounds} rounds of ${tests} tests each side:`);
console.log(`  reset() alone: ${(1e6 / resetOnly).toFixed(2)} µs`);
console.log('  round | baseline tests/s (bare new Response x2) | kit tests/s (reset + create + get via fetch) | kit µs per test | kit / baseline');
const kits: number[] = [];
const baselines: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const baseline = await perSecond(baselineTest, tests);
  const kit = await perSecond(kitTest, tests);
  baselines.push(baseline);
  kits.push(kit);
  console.log(`  ${round} | ${Math.round(baseline)} | ${Math.round(kit)} | ${(1e6 / kit).toFixed(0)} | ${(kit / baseline).toFixed(3)}`);
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const best = Math.max(...kits);
console.log(`  mean: kit ${Math.round(mean(kits))} tests/s, best round ${Math.round(best)}; kit / baseline ${(mean(kits) / mean(baselines)).toFixed(3)}`);
console.log(`  target >= 5,000 tests/s: ${mean(kits) >= 5000 ? 'met' : best >= 5000 ? 'met in the best round only' : 'NOT met on this run'}`);
