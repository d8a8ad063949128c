import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance, type ConformanceResult } from '../../conformance/index.js';
import { requirements } from '../../conformance/requirements.js';
import { rateLimitProbe, startCertifiedServer } from './harness.js';

function failures(result: ConformanceResult): string {
  return result.requirements
    .filter((r) => r.status !== 'passed' && r.status !== 'not checked')
    .map((r) => `${r.id}: ${r.status} ${r.reason ?? JSON.stringify(r.evidence)}`)
    .join('\n');
}

for (const storage of ['memory', 'sqlite'] as const) {
  test(`our Node binding on ${storage} passes every requirement the suite checks`, async () => {
    const server = await startCertifiedServer({ storage });
    try {
      const result = await runConformance({ baseUrl: server.url, fixtures: server.fixtures, publishedAssetId: server.publishedAssetId, rateLimitProbe, runs: 5, seed: 20261123 });
      assert.equal(result.summary.failed, 0, failures(result));
      assert.equal(result.summary.notCertified, 0, failures(result));
      const notChecked = result.requirements.filter((r) => r.status === 'not checked').map((r) => r.id);
      assert.deepEqual(notChecked, requirements.filter((r) => r.notChecked).map((r) => r.id), 'only the requirements the catalogue says cannot be checked black-box');
      assert.equal(result.ok, true);
      assert.equal(result.seed, 20261123);
    } finally {
      await server.close();
    }
  });
}

test('a missing fixture leaves its requirements not certified, naming the flag, never passed', async () => {
  const server = await startCertifiedServer();
  try {
    const result = await runConformance({ baseUrl: server.url, fixtures: { seller: server.fixtures.seller }, runs: 0, only: ['rest.assets.not-a-seller', 'rest.auth.suspended', 'rest.uploads.live', 'rest.health', 'model'] });
    const byId = new Map(result.requirements.map((r) => [r.id, r]));
    assert.equal(byId.get('ASSET-CREATE-NOT-A-SELLER')?.status, 'not certified');
    assert.match(byId.get('ASSET-CREATE-NOT-A-SELLER')!.reason!, /needs --token-non-seller/);
    assert.match(byId.get('AUTH-SUSPENDED-403')!.reason!, /needs --token-suspended/);
    assert.match(byId.get('UPLOAD-URL-LIVE-409')!.reason!, /--published-asset/);
    assert.match(byId.get('MODEL-SEQUENCES')!.reason!, /--runs 0/);
    assert.equal(byId.get('HEALTH-OK')?.status, 'passed');
    assert.equal(result.ok, true, 'what could be certified passed');
    assert.deepEqual(result.fixtures, ['seller']);
  } finally {
    await server.close();
  }
});

test('runConformance refuses to start without the seller token', async () => {
  await assert.rejects(runConformance({ baseUrl: 'http://127.0.0.1:9', fixtures: {} as never }), /fixtures\.seller/);
});
