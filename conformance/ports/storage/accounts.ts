import assert from 'node:assert/strict';
import { accountRecord, at, tokenRecord } from '../sample-records.js';
import { owner, type StorageTests } from './fixtures.js';

/** Accounts: round trips, lookups by username, uniqueness, updates. */
export const accountTests: StorageTests = {
  'an account reads back exactly as inserted': async (storage) => {
    const account = accountRecord({ bio: 'Builds castles', is_restricted: true, plan_features: [] });
    await storage.insertAccount(account);
    assert.deepStrictEqual(await storage.getAccount(account.id), account);
    assert.equal(await storage.getAccount(crypto.randomUUID()), null);
  },
  'findAccountByUsername finds that username, ignoring ASCII case': async (storage) => {
    const account = await owner(storage);
    assert.deepStrictEqual(await storage.findAccountByUsername(account.username), account);
    assert.deepStrictEqual(await storage.findAccountByUsername(account.username.toUpperCase()), account);
    assert.equal(await storage.findAccountByUsername('nobody-here'), null);
  },
  'insertAccount throws on a taken id or username, also one that differs only in case': async (storage) => {
    const account = await owner(storage);
    await assert.rejects(storage.insertAccount(accountRecord({ id: account.id })));
    await assert.rejects(storage.insertAccount(accountRecord({ username: account.username })));
    await assert.rejects(storage.insertAccount(accountRecord({ username: account.username.toUpperCase() })));
  },
  'updateAccount changes the given fields only; null for a missing account': async (storage) => {
    const account = await owner(storage);
    const changes = { display_name: null, payouts_connected: false, hire: { available: false, rate: null, contact: 'mail' }, updated_at: at(5) };
    const updated = await storage.updateAccount(account.id, changes);
    assert.deepStrictEqual(updated, { ...account, ...changes });
    assert.deepStrictEqual(await storage.getAccount(account.id), { ...account, ...changes });
    assert.equal(await storage.updateAccount(crypto.randomUUID(), { updated_at: at(5) }), null);
  },
  'listAccounts pages through every account by username (byte order) with the total': async (storage) => {
    const before = await storage.listAccounts(1, 0);
    const tag = crypto.randomUUID().slice(0, 8);
    const names = [`zz-${tag}-b`, `zz-${tag}-C`, `zz-${tag}-a`];
    for (const username of names) await storage.insertAccount(accountRecord({ username }));
    const all = await storage.listAccounts(1000, 0);
    assert.equal(all.total, before.total + 3);
    assert.equal(all.items.length, all.total);
    const usernames = all.items.map((a) => a.username);
    assert.deepEqual([...usernames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), usernames, 'in byte order');
    assert.deepEqual(usernames.filter((u) => u.includes(tag)), [`zz-${tag}-C`, `zz-${tag}-a`, `zz-${tag}-b`]);
    const at = usernames.indexOf(`zz-${tag}-a`);
    const page = await storage.listAccounts(2, at);
    assert.deepEqual(page.items.map((a) => a.username), usernames.slice(at, at + 2));
    assert.equal(page.total, all.total);
    assert.deepStrictEqual(page.items[0], await storage.findAccountByUsername(`zz-${tag}-a`), 'whole records');
  },
  'ping resolves': async (storage) => {
    await storage.ping();
  },
};

/** Developer tokens: lookups by id and hash, an account's live list, revocation, last use. */
export const tokenTests: StorageTests = {
  'a token reads back by id and by hash': async (storage) => {
    const token = tokenRecord((await owner(storage)).id, { expires_at: at(600), scopes: ['tokens:read'] });
    await storage.insertToken(token);
    assert.deepStrictEqual(await storage.getToken(token.id), token);
    assert.deepStrictEqual(await storage.findTokenByHash(token.hash), token);
    assert.equal(await storage.findTokenByHash('0'.repeat(64)), null);
  },
  "listTokens gives the account's live tokens, newest first": async (storage) => {
    const mine = (await owner(storage)).id;
    const theirs = (await owner(storage)).id;
    const older = tokenRecord(mine, { created_at: at(1), id: '00000000-0000-4000-8000-000000000001' });
    const tieLow = tokenRecord(mine, { created_at: at(2), id: '00000000-0000-4000-8000-000000000002' });
    const tieHigh = tokenRecord(mine, { created_at: at(2), id: '00000000-0000-4000-8000-000000000003' });
    const revoked = tokenRecord(mine, { created_at: at(3), revoked_at: at(4) });
    for (const token of [tieLow, older, revoked, tieHigh, tokenRecord(theirs)]) await storage.insertToken(token);
    assert.deepStrictEqual(await storage.listTokens(mine), [tieHigh, tieLow, older]);
  },
  'revokeToken keeps the first revocation and is seen by findTokenByHash': async (storage) => {
    const account = (await owner(storage)).id;
    const token = tokenRecord(account);
    await storage.insertToken(token);
    assert.deepStrictEqual(await storage.revokeToken(account, token.id, at(10)), { ...token, revoked_at: at(10) });
    assert.equal((await storage.findTokenByHash(token.hash))?.revoked_at, at(10));
    assert.equal((await storage.revokeToken(account, token.id, at(20)))?.revoked_at, at(10));
    assert.deepStrictEqual(await storage.listTokens(account), []);
  },
  "revokeToken is null for another account's token and for an unknown id": async (storage) => {
    const token = tokenRecord((await owner(storage)).id);
    await storage.insertToken(token);
    assert.equal(await storage.revokeToken((await owner(storage)).id, token.id, at(10)), null);
    assert.equal(await storage.revokeToken(token.account_id, crypto.randomUUID(), at(10)), null);
    assert.equal((await storage.getToken(token.id))?.revoked_at, null);
  },
  'touchToken records the last use': async (storage) => {
    const token = tokenRecord((await owner(storage)).id);
    await storage.insertToken(token);
    await storage.touchToken(token.id, at(30));
    assert.equal((await storage.findTokenByHash(token.hash))?.last_used_at, at(30));
  },
};

/** Categories: round trips, the order by name, renames. */
export const categoryTests: StorageTests = {
  'categories read back, listed by name': async (storage) => {
    const tools = { id: crypto.randomUUID(), slug: 'tools', name: 'Tools' };
    const audio = { id: crypto.randomUUID(), slug: 'audio', name: 'Audio' };
    const maps = { id: crypto.randomUUID(), slug: 'maps', name: 'Maps' };
    for (const category of [tools, audio, maps]) await storage.insertCategory(category);
    assert.deepStrictEqual(await storage.getCategory(maps.id), maps);
    assert.equal(await storage.getCategory(crypto.randomUUID()), null);
    assert.deepStrictEqual(await storage.listCategories(), [audio, maps, tools]);
  },
  'a renamed category keeps its id and slug and moves in the order': async (storage) => {
    const props = { id: crypto.randomUUID(), slug: 'props', name: 'Props' };
    const audio = { id: crypto.randomUUID(), slug: 'audio', name: 'Audio' };
    for (const category of [props, audio]) await storage.insertCategory(category);
    const renamed = { ...props, name: 'Animated props' };
    assert.deepStrictEqual(await storage.renameCategory(props.id, 'Animated props'), renamed);
    assert.deepStrictEqual(await storage.getCategory(props.id), renamed);
    assert.deepStrictEqual(await storage.listCategories(), [renamed, audio]);
    assert.equal(await storage.renameCategory(crypto.randomUUID(), 'Nothing'), null);
  },
};
