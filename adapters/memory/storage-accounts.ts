import type { StoragePort } from '../../core/ports/storage.js';
import { copy, newestFirst, type MemoryStorageState } from './storage-state.js';
import type { ListIndexes } from './list-indexes.js';
import { assertNewEvents, writeEvents } from './storage-webhooks.js';

type AccountMethods = Pick<StoragePort, 'insertAccount' | 'getAccount' | 'findAccountByUsername' | 'listAccounts' | 'updateAccount'>;
type TokenMethods = Pick<StoragePort, 'insertToken' | 'findTokenByHash' | 'getToken' | 'listTokens' | 'revokeToken' | 'touchToken'>;
type CategoryMethods = Pick<StoragePort, 'insertCategory' | 'getCategory' | 'listCategories' | 'renameCategory'>;

/** The memory store's accounts, developer tokens and categories. */
export function accountMethods(s: MemoryStorageState, indexes: ListIndexes): AccountMethods & TokenMethods & CategoryMethods {
  return { ...accountRecords(s, indexes), ...tokenMethods(s), ...categoryMethods(s) };
}

function accountRecords(s: MemoryStorageState, indexes: ListIndexes): AccountMethods {
  return {
    async insertAccount(account) {
      if (s.accounts.has(account.id)) throw new Error(`memoryStorage: account ${account.id} exists`);
      for (const existing of s.accounts.values()) {
        // Unique ignoring ASCII case, as the SQL stores' indexes have it (usernames are ASCII).
        if (existing.username.toLowerCase() === account.username.toLowerCase()) throw new Error(`memoryStorage: username ${account.username} is taken`);
      }
      s.accounts.set(account.id, copy(account));
      indexes.accountAdded(account);
    },
    async getAccount(id) {
      const account = s.accounts.get(id);
      return account ? copy(account) : null;
    },
    async listAccounts(limit, offset, after) {
      const keys = indexes.get().accounts;
      return { items: keys.page('asc', limit, offset, after).map((id) => copy(s.accounts.get(id)!)), total: keys.size };
    },
    async findAccountByUsername(username) {
      const wanted = username.toLowerCase();
      for (const account of s.accounts.values()) if (account.username.toLowerCase() === wanted) return copy(account);
      return null;
    },
    async updateAccount(id, changes) {
      const account = s.accounts.get(id);
      if (!account) return null;
      const updated = { ...account, ...copy(changes) };
      s.accounts.set(id, updated);
      indexes.accountRemoved(account);
      indexes.accountAdded(updated);
      return copy(updated);
    },
  };
}

function tokenMethods(s: MemoryStorageState): TokenMethods {
  const { tokensByHash } = s;
  return {
    async insertToken(token) {
      if (s.tokens.has(token.id) || tokensByHash.has(token.hash)) throw new Error('memoryStorage: token exists');
      s.tokens.set(token.id, copy(token));
      tokensByHash.set(token.hash, token.id);
    },
    async findTokenByHash(hash) {
      const id = tokensByHash.get(hash);
      return id ? copy(s.tokens.get(id)!) : null;
    },
    async getToken(id) {
      const token = s.tokens.get(id);
      return token ? copy(token) : null;
    },
    async listTokens(accountId) {
      return [...s.tokens.values()]
        .filter((token) => token.account_id === accountId && !token.revoked_at)
        .sort(newestFirst)
        .map(copy);
    },
    async revokeToken(accountId, id, at, events) {
      assertNewEvents(s, events);
      const token = s.tokens.get(id);
      if (!token || token.account_id !== accountId) return null;
      if (token.revoked_at) return copy(token);
      const revoked = { ...token, revoked_at: at };
      s.tokens.set(id, revoked);
      writeEvents(s, events);
      return copy(revoked);
    },
    async touchToken(id, at) {
      const token = s.tokens.get(id);
      if (token) s.tokens.set(id, { ...token, last_used_at: at });
    },
  };
}

function categoryMethods(s: MemoryStorageState): CategoryMethods {
  return {
    async insertCategory(category) {
      for (const existing of s.categories.values()) {
        if (existing.id === category.id || existing.slug === category.slug) throw new Error(`memoryStorage: category ${category.slug} exists`);
      }
      s.categories.set(category.id, copy(category));
    },
    async getCategory(id) {
      const category = s.categories.get(id);
      return category ? copy(category) : null;
    },
    async listCategories() {
      return [...s.categories.values()].sort((a, b) => a.name.localeCompare(b.name)).map(copy);
    },
    async renameCategory(id, name) {
      const category = s.categories.get(id);
      if (!category) return null;
      // A new record, never a change in place: snapshots share the records they hold.
      const renamed = { ...category, name };
      s.categories.set(id, renamed);
      return copy(renamed);
    },
  };
}
