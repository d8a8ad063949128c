/**
 * The dashboard's port (core/ports/dashboard.ts), an optional capability of a storage: the group
 * `dashboard` of the storage suite. Sign-in links used up once (of concurrent uses, on this store
 * and its peer, exactly one gets the account), never after they expire; sessions stored and read
 * field for field, seen_at moved forward only, ended one at a time or all of an account's.
 * Passkeys (core/ports/passkeys.ts): stored once per credential id, listed per account oldest
 * first, marked used, removed by their own account only; their challenges used up once (exactly
 * one of concurrent uses gets one), never after they expire.
 */
import assert from 'node:assert/strict';
import { dashboardOf, type DashboardPort, type DashboardSessionRecord } from '../../core/ports/dashboard.js';
import type { PasskeyChallengeRecord, PasskeyRecord } from '../../core/ports/passkeys.js';
import type { StoragePort } from '../../core/ports/storage.js';
import { at } from './sample-records.js';
import { owner, type StorageTests, type WithPeer } from './storage/fixtures.js';
import { countOf } from './suite.js';

const portOf = (storage: object): DashboardPort => {
  const port = dashboardOf(storage);
  if (!port) throw new Error('This storage has no dashboard capability (storage.dashboard: core/ports/dashboard.ts); skip the group "dashboard" with its reason if it is not meant to.');
  return port;
};

const hash = () => crypto.randomUUID().replace(/-/g, '').repeat(2);

const sessionOf = (accountId: string, overrides: Partial<DashboardSessionRecord> = {}): DashboardSessionRecord => ({
  hash: hash(), account_id: accountId, form_token: crypto.randomUUID(), created_at: at(1), seen_at: at(1), expires_at: at(100), ...overrides,
});

const passkeyOf = (accountId: string, overrides: Partial<PasskeyRecord> = {}): PasskeyRecord => ({
  id: hash().slice(0, 43), account_id: accountId, name: 'Laptop', public_key: 'pQECAyYgASFYIA', counter: 0, transports: ['internal', 'hybrid'], created_at: at(1), last_used_at: null, ...overrides,
});

const challengeOf = (accountId: string | null, overrides: Partial<PasskeyChallengeRecord> = {}): PasskeyChallengeRecord => ({
  hash: hash(), purpose: accountId ? 'enrol' : 'sign-in', account_id: accountId, created_at: at(1), expires_at: at(10), ...overrides,
});

export function dashboardTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'sign-in link: used up once, for its account; never after it expired; an unknown one is null': async (storage) => {
      const port = portOf(storage);
      const account = await owner(storage);
      const link = { hash: hash(), account_id: account.id, created_at: at(1), expires_at: at(10) };
      await port.createSignInLink(link);
      assert.equal(await port.consumeSignInLink(link.hash, at(5)), account.id);
      assert.equal(await port.consumeSignInLink(link.hash, at(5)), null, 'a second use');
      const late = { ...link, hash: hash() };
      await port.createSignInLink(late);
      assert.equal(await port.consumeSignInLink(late.hash, at(10)), null, 'at its expiry');
      assert.equal(await port.consumeSignInLink(late.hash, at(5)), null, 'and gone after an expired use');
      assert.equal(await port.consumeSignInLink(hash(), at(5)), null);
    },
    'sign-in link: of concurrent uses, on this store and its peer, exactly one gets the account': async (storage) => {
      const account = await owner(storage);
      const link = { hash: hash(), account_id: account.id, created_at: at(1), expires_at: at(10) };
      await portOf(storage).createSignInLink(link);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(Array.from({ length: 8 }, (_, i) => portOf(pick(i)).consumeSignInLink(link.hash, at(5))), (found) => found === account.id);
        assert.equal(count, 1);
      });
    },
    'sweep: sessions past their end or idle since before the cut, and links past their end, go; the rest stay': async (storage) => {
      const port = portOf(storage);
      const account = await owner(storage);
      const live = sessionOf(account.id, { seen_at: at(50), expires_at: at(100) });
      const ended = sessionOf(account.id, { seen_at: at(50), expires_at: at(60) });
      const idle = sessionOf(account.id, { seen_at: at(10), expires_at: at(100) });
      for (const one of [live, ended, idle]) await port.createSession(one);
      const fresh = { hash: hash(), account_id: account.id, created_at: at(55), expires_at: at(70) };
      const stale = { hash: hash(), account_id: account.id, created_at: at(40), expires_at: at(60) };
      for (const one of [fresh, stale]) await port.createSignInLink(one);
      assert.ok((await port.sweepExpired(at(60), at(20))) >= 3, 'at least the ended and idle sessions and the stale link');
      assert.deepStrictEqual(await port.getSession(live.hash), live);
      assert.equal(await port.getSession(ended.hash), null, 'past its absolute end');
      assert.equal(await port.getSession(idle.hash), null, 'idle since before the cut');
      assert.equal(await port.consumeSignInLink(stale.hash, at(30)), null, 'a link past its end is gone');
      assert.equal(await port.consumeSignInLink(fresh.hash, at(65)), account.id, 'a live link stays');
    },
    'session: stored and read field for field; seen_at moves forward only; an unknown one is null': async (storage) => {
      const port = portOf(storage);
      const account = await owner(storage);
      const session = sessionOf(account.id);
      await port.createSession(session);
      assert.deepStrictEqual(await port.getSession(session.hash), session);
      await port.touchSession(session.hash, at(20));
      await port.touchSession(session.hash, at(15));
      assert.deepStrictEqual(await port.getSession(session.hash), { ...session, seen_at: at(20) });
      await port.touchSession(hash(), at(20));
      assert.equal(await port.getSession(hash()), null);
    },
    'session: ended one at a time, or every one of an account (how many), no other account’s': async (storage) => {
      const port = portOf(storage);
      const [mine, theirs] = [await owner(storage), await owner(storage)];
      const sessions = [sessionOf(mine.id), sessionOf(mine.id), sessionOf(mine.id), sessionOf(theirs.id)];
      for (const session of sessions) await port.createSession(session);
      await port.deleteSession(sessions[0]!.hash);
      assert.equal(await port.getSession(sessions[0]!.hash), null);
      assert.equal(await port.deleteSessionsOf(mine.id), 2);
      for (const session of sessions.slice(0, 3)) assert.equal(await port.getSession(session.hash), null);
      assert.deepStrictEqual(await port.getSession(sessions[3]!.hash), sessions[3]);
      assert.equal(await port.deleteSessionsOf(mine.id), 0);
    },
    'passkey: stored field for field, once per id (a second with its id, on any account, is refused); listed per account oldest first': async (storage) => {
      const { passkeys } = portOf(storage);
      const [mine, theirs] = [await owner(storage), await owner(storage)];
      const second = passkeyOf(mine.id, { created_at: at(2), name: 'Phone', transports: [] });
      const first = passkeyOf(mine.id);
      assert.equal(await passkeys.addPasskey(second), true);
      assert.equal(await passkeys.addPasskey(first), true);
      assert.equal(await passkeys.addPasskey({ ...first, account_id: theirs.id, name: 'Taken' }), false, 'an id already kept');
      assert.deepStrictEqual(await passkeys.getPasskey(first.id), first);
      assert.deepStrictEqual(await passkeys.listPasskeys(mine.id), [first, second]);
      assert.deepStrictEqual(await passkeys.listPasskeys(theirs.id), []);
      assert.equal(await passkeys.getPasskey(hash()), null);
    },
    'passkey: a use moves its counter and last use; removed by its own account only': async (storage) => {
      const { passkeys } = portOf(storage);
      const [mine, theirs] = [await owner(storage), await owner(storage)];
      const passkey = passkeyOf(mine.id);
      await passkeys.addPasskey(passkey);
      await passkeys.usePasskey(passkey.id, 7, at(5));
      assert.deepStrictEqual(await passkeys.getPasskey(passkey.id), { ...passkey, counter: 7, last_used_at: at(5) });
      await passkeys.usePasskey(hash(), 1, at(5));
      assert.equal(await passkeys.deletePasskey(theirs.id, passkey.id), false, 'another account’s');
      assert.notEqual(await passkeys.getPasskey(passkey.id), null);
      assert.equal(await passkeys.deletePasskey(mine.id, passkey.id), true);
      assert.equal(await passkeys.getPasskey(passkey.id), null);
      assert.equal(await passkeys.deletePasskey(mine.id, passkey.id), false, 'already gone');
    },
    'passkey challenge: used up once, whole; never after it expired; an unknown one is null': async (storage) => {
      const { passkeys } = portOf(storage);
      const account = await owner(storage);
      const enrol = challengeOf(account.id);
      const signIn = challengeOf(null);
      await passkeys.createChallenge(enrol);
      await passkeys.createChallenge(signIn);
      assert.deepStrictEqual(await passkeys.consumeChallenge(enrol.hash, at(5)), enrol);
      assert.equal(await passkeys.consumeChallenge(enrol.hash, at(5)), null, 'a second use');
      assert.deepStrictEqual(await passkeys.consumeChallenge(signIn.hash, at(5)), signIn);
      const late = challengeOf(null);
      await passkeys.createChallenge(late);
      assert.equal(await passkeys.consumeChallenge(late.hash, at(10)), null, 'at its expiry');
      assert.equal(await passkeys.consumeChallenge(late.hash, at(5)), null, 'and gone after an expired use');
      assert.equal(await passkeys.consumeChallenge(hash(), at(5)), null);
    },
    'passkey challenge: of concurrent uses, on this store and its peer, exactly one gets it': async (storage) => {
      const challenge = challengeOf(null);
      await portOf(storage).passkeys.createChallenge(challenge);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(Array.from({ length: 8 }, (_, i) => portOf(pick(i)).passkeys.consumeChallenge(challenge.hash, at(5))), (found) => found?.hash === challenge.hash);
        assert.equal(count, 1);
      });
    },
  };
}
