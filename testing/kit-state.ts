import { memoryBlobs, memoryStorage, type ManualClock, type MemoryBlobs, type MemoryBlobsSnapshot, type MemoryStorage, type MemoryStorageSnapshot } from '../adapters/memory/index.js';
import type { AccountInput } from '../core/admin/accounts.js';
import { scopes as allScopes, type Scope } from '../core/domain/scopes.js';
import { ConfigurationError } from '../core/errors.js';
import type { Marketplace } from '../core/marketplace.js';
import { fixtureAccounts, type TestAccount } from './fixtures.js';
import type { seededIds } from './ids.js';
import { applySeed, parseSeed, type Seed } from './seed.js';

/** The state of a test marketplace at one moment (storage, blobs, clock), for restore(). Opaque. */
export interface TestSnapshot {
  readonly kind: 'marketkit-test-snapshot';
  /** @internal */ readonly storage: MemoryStorageSnapshot;
  /** @internal */ readonly blobs: MemoryBlobsSnapshot;
  /** @internal */ readonly now: number;
  /** @internal */ readonly ids: number;
}

interface StateParts {
  storage: MemoryStorage;
  blobs: MemoryBlobs;
  clock: ManualClock;
  ids: ReturnType<typeof seededIds> | null;
  marketplace: Marketplace;
  /** Empties every rate-limit window. */
  resetLimits: () => void;
}

/**
 * The kit's state: the baseline (the fixture accounts and the seed, with their tokens), snapshots
 * and restores of it, and the accounts with tokens of chosen scopes.
 */
export function kitState({ storage, blobs, clock, ids, marketplace, resetLimits }: StateParts, initialSeed: Seed | undefined) {
  const idsAtStart = ids?.state() ?? 0;
  /** The accounts of the baseline with their tokens (which stay valid across resets). */
  let baselineAccounts = new Map<string, TestAccount>();
  let baseline: TestSnapshot;
  /** Tokens with chosen scopes made since the last reset. */
  let scopedTokens = new Map<string, TestAccount>();

  const takeSnapshot = (): TestSnapshot => ({ kind: 'marketkit-test-snapshot', storage: storage.snapshot(), blobs: blobs.snapshot(), now: clock.now(), ids: ids?.state() ?? 0 });
  const restoreState = (snapshot: TestSnapshot) => {
    if (snapshot?.kind !== 'marketkit-test-snapshot') throw new ConfigurationError('marketkit/testing restore', 'pass a value returned by snapshot()');
    storage.restore(snapshot.storage);
    blobs.restore(snapshot.blobs);
    clock.set(snapshot.now);
    ids?.setState(snapshot.ids);
    resetLimits();
    scopedTokens = new Map();
  };

  const asTestAccount = (username: string, t: { id: string; token: string; tokenId: string; scopes: Scope[] }): TestAccount => ({
    username,
    ...t,
    headers: { authorization: `Bearer ${t.token}` },
  });

  const fixtureUsernames = Object.values(fixtureAccounts).map((f) => f.username);
  const seedAt = clock.now();

  async function build(seed: Seed | undefined): Promise<Record<string, TestAccount>> {
    const parsed = parseSeed(seed, fixtureUsernames);
    storage.restore(memoryStorage().snapshot());
    blobs.restore(memoryBlobs().snapshot());
    clock.set(seedAt);
    ids?.setState(idsAtStart);
    const accounts = new Map<string, TestAccount>();
    for (const { username, account } of Object.values(fixtureAccounts)) {
      const created = await marketplace.admin.createAccount({ username, ...account } as AccountInput);
      const issued = await marketplace.admin.createToken({ accountId: created.id, name: 'fixture', scopes: [...allScopes] });
      accounts.set(username, asTestAccount(username, { id: created.id, token: issued.token, tokenId: issued.record.id, scopes: [...allScopes] }));
    }
    const seeded = await applySeed(marketplace, parsed, (username) => storage.findAccountByUsername(username));
    for (const [username, t] of seeded) accounts.set(username, asTestAccount(username, t));
    baselineAccounts = accounts;
    baseline = takeSnapshot();
    restoreState(baseline);
    return Object.fromEntries(accounts);
  }

  // The seed is checked now, so that a mistake in it throws here rather than in the first test.
  parseSeed(initialSeed, fixtureUsernames);
  const ready = build(initialSeed).then(() => {});
  ready.catch(() => {});

  async function account(username: string, { scopes }: { scopes?: Scope[] } = {}): Promise<TestAccount> {
    await ready;
    const base = baselineAccounts.get(username);
    if (!base) throw new ConfigurationError('marketkit/testing account', `no account ${username} in the seed or the fixtures (${[...baselineAccounts.keys()].join(', ')})`);
    if (!scopes) return base;
    const key = `${username}\n${[...scopes].sort().join(' ')}`;
    const existing = scopedTokens.get(key);
    if (existing) return existing;
    const issued = await marketplace.admin.createToken({ accountId: base.id, name: `scoped ${scopes.join(' ')}`, scopes });
    const made = asTestAccount(username, { id: base.id, token: issued.token, tokenId: issued.record.id, scopes: [...scopes] });
    scopedTokens.set(key, made);
    return made;
  }

  /** Replaces the baseline; a seed the create rules refuse leaves the previous one in place, whole. */
  async function reseed(seed: Seed): Promise<Record<string, TestAccount>> {
    await ready;
    parseSeed(seed, fixtureUsernames);
    const previous = { baseline, baselineAccounts };
    try {
      return await build(seed);
    } catch (error) {
      ({ baseline, baselineAccounts } = previous);
      restoreState(baseline);
      throw error;
    }
  }

  return {
    ready,
    account,
    reseed,
    /** Back to the baseline. */
    reset: () => restoreState(baseline),
    snapshot: takeSnapshot,
    restore: restoreState,
  };
}
