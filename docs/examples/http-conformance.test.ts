/**
 * Certifying a server with node:test, as a vendor does in their own CI:
 *
 *   MARKETKIT_URL=https://market.example MARKETKIT_TOKEN=smcp_... node --import tsx --test http-conformance.test.ts
 *
 * Optional fixtures come from MARKETKIT_TOKEN_SECOND_SELLER, MARKETKIT_TOKEN_NON_SELLER, ... (one
 * per --token-... flag of `marketkit conformance`). In your project the import is
 * `marketkit/conformance`; this copy imports the repository's sources so that its test runs it as it is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureDescriptions, fixtureNames, renderSummary, runConformance, type Fixtures } from '../../conformance/index.js';

const baseUrl = process.env.MARKETKIT_URL;
const fixtures: Partial<Fixtures> = {};
for (const name of fixtureNames) {
  // --token-second-seller -> MARKETKIT_TOKEN_SECOND_SELLER; --token -> MARKETKIT_TOKEN
  const variable = `MARKETKIT_${fixtureDescriptions[name].flag.slice(2).replace(/-/g, '_').toUpperCase()}`;
  if (process.env[variable]) fixtures[name] = process.env[variable];
}

test('the server conforms to the MarketKit contract', async (t) => {
  if (!baseUrl || !fixtures.seller) {
    t.skip('set MARKETKIT_URL and MARKETKIT_TOKEN (an approved seller with all six scopes) to certify a server');
    return;
  }
  const result = await runConformance({
    baseUrl,
    fixtures: fixtures as Fixtures,
    runs: Number(process.env.MARKETKIT_RUNS ?? 10),
    ...(process.env.MARKETKIT_SEED ? { seed: Number(process.env.MARKETKIT_SEED) } : {}),
  });
  // One subtest per requirement, so that the runner's report names each one.
  for (const requirement of result.requirements) {
    await t.test(requirement.id, (st) => {
      if (requirement.status === 'not certified' || requirement.status === 'not checked') return st.skip(`${requirement.status}: ${requirement.reason}`);
      assert.equal(requirement.status, 'passed', `${requirement.rule}\n${JSON.stringify(requirement.evidence, null, 2)}`);
    });
  }
  t.diagnostic(renderSummary(result).split('\n').slice(-3).join(' | '));
  assert.equal(result.ok, true);
});
