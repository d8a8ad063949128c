/**
 * The dashboard's port (core/ports/dashboard.ts), an optional capability of a storage: the group
 * `dashboard` of the storage suite. Sign-in links used up once (of concurrent uses, on this store
 * and its peer, exactly one gets the account), never after they expire; sessions stored and read
 * field for field, seen_at moved forward only, ended one at a time or all of an account's.
 */
import assert from 'node:assert/strict';
import { dashboardOf, type DashboardPort, type DashboardSessionRecord } from '../../core/ports/dashboard.js';
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
  };
}
