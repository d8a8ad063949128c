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

/** What the functions below read and change: the parts, and the baseline they go back to. */
interface KitStateData {
  parts: StateParts;
  idsAtStart: number;
  /** The clock's time when the kit was made: every build of the baseline starts from it. */
  seedAt: number;
  /** The accounts of the baseline with their tokens (which stay valid across resets). */
  baselineAccounts: Map<string, TestAccount>;
  baseline?: TestSnapshot;
  /** Tokens with chosen scopes made since the last reset. */
  scopedTokens: Map<string, TestAccount>;
}

const fixtureUsernames = Object.values(fixtureAccounts).map((f) => f.username);

/**
 * The kit's state: the baseline (the fixture accounts and the seed, with their tokens), snapshots
 * and restores of it, and the accounts with tokens of chosen scopes.
 */
export function kitState(parts: StateParts, initialSeed: Seed | undefined) {
  const k: KitStateData = { parts, idsAtStart: parts.ids?.state() ?? 0, seedAt: parts.clock.now(), baselineAccounts: new Map(), scopedTokens: new Map() };
  // The seed is checked now, so that a mistake in it throws here rather than in the first test.
  parseSeed(initialSeed, fixtureUsernames);
  const ready = build(k, initialSeed).then(() => {});
  // Awaited by every method below, which throws its error; until then it must not go unhandled.
  ready.catch(() => {});
  return {
    ready,
    account: async (username: string, options: { scopes?: Scope[] } = {}) => (await ready, scopedAccount(k, username, options)),
    /** Replaces the baseline; a seed the create rules refuse leaves the previous one in place, whole. */
    reseed: async (seed: Seed) => (await ready, reseed(k, seed)),
    /** Back to the baseline. */
    reset: () => restoreState(k, k.baseline!),
    snapshot: () => takeSnapshot(k),
    restore: (snapshot: TestSnapshot) => restoreState(k, snapshot),
  };
}

function takeSnapshot({ parts: { storage, blobs, clock, ids } }: KitStateData): TestSnapshot {
  return { kind: 'marketkit-test-snapshot', storage: storage.snapshot(), blobs: blobs.snapshot(), now: clock.now(), ids: ids?.state() ?? 0 };
}

function restoreState(k: KitStateData, snapshot: TestSnapshot): void {
  const { storage, blobs, clock, ids, resetLimits } = k.parts;
  if (snapshot?.kind !== 'marketkit-test-snapshot') throw new ConfigurationError('marketkit/testing restore', 'pass a value returned by snapshot()');
  storage.restore(snapshot.storage);
  blobs.restore(snapshot.blobs);
  clock.set(snapshot.now);
  ids?.setState(snapshot.ids);
  resetLimits();
  k.scopedTokens = new Map();
}

const asTestAccount = (username: string, t: { id: string; token: string; tokenId: string; scopes: Scope[] }): TestAccount => ({
  username,
  ...t,
  headers: { authorization: `Bearer ${t.token}` },
});

/** The baseline made afresh: empty stores at the start time, the fixture accounts, then the seed. */
async function build(k: KitStateData, seed: Seed | undefined): Promise<Record<string, TestAccount>> {
  const { storage, blobs, clock, ids, marketplace } = k.parts;
  const parsed = parseSeed(seed, fixtureUsernames);
  storage.restore(memoryStorage().snapshot());
  blobs.restore(memoryBlobs().snapshot());
  clock.set(k.seedAt);
  ids?.setState(k.idsAtStart);
  const accounts = new Map<string, TestAccount>();
  for (const { username, account } of Object.values(fixtureAccounts)) {
    const created = await marketplace.admin.createAccount({ username, ...account } as AccountInput);
    const issued = await marketplace.admin.createToken({ accountId: created.id, name: 'fixture', scopes: [...allScopes] });
    accounts.set(username, asTestAccount(username, { id: created.id, token: issued.token, tokenId: issued.record.id, scopes: [...allScopes] }));
  }
  const seeded = await applySeed(marketplace, parsed, (username) => storage.findAccountByUsername(username));
  for (const [username, t] of seeded) accounts.set(username, asTestAccount(username, t));
  k.baselineAccounts = accounts;
  k.baseline = takeSnapshot(k);
  restoreState(k, k.baseline);
  return Object.fromEntries(accounts);
}

/** A baseline account, or with `scopes` a token of those scopes for it (made once per reset). */
async function scopedAccount(k: KitStateData, username: string, { scopes }: { scopes?: Scope[] }): Promise<TestAccount> {
  const base = k.baselineAccounts.get(username);
  if (!base) throw new ConfigurationError('marketkit/testing account', `no account ${username} in the seed or the fixtures (${[...k.baselineAccounts.keys()].join(', ')})`);
  if (!scopes) return base;
  const key = `${username}\n${[...scopes].sort().join(' ')}`;
  const existing = k.scopedTokens.get(key);
  if (existing) return existing;
  const issued = await k.parts.marketplace.admin.createToken({ accountId: base.id, name: `scoped ${scopes.join(' ')}`, scopes });
  const made = asTestAccount(username, { id: base.id, token: issued.token, tokenId: issued.record.id, scopes: [...scopes] });
  k.scopedTokens.set(key, made);
  return made;
}

async function reseed(k: KitStateData, seed: Seed): Promise<Record<string, TestAccount>> {
  parseSeed(seed, fixtureUsernames);
  const previous = { baseline: k.baseline, baselineAccounts: k.baselineAccounts };
  try {
    return await build(k, seed);
  } catch (error) {
    ({ baseline: k.baseline, baselineAccounts: k.baselineAccounts } = previous);
    restoreState(k, k.baseline!);
    throw error;
  }
}
