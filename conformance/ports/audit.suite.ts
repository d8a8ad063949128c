/**
 * The audit log's port (core/ports/audit.ts), an optional capability of a storage: the group
 * `audit` of the storage suite. Entries stored field for field and read newest first (by time, then
 * id), a page at a time from where the last page ended; an entry stays whatever happens to the
 * account it names.
 */
import assert from 'node:assert/strict';
import { auditOf, type AuditEntry, type AuditPort } from '../../core/ports/audit.js';
import type { StoragePort } from '../../core/ports/storage.js';
import { at } from './sample-records.js';
import { owner, type StorageTests } from './storage/fixtures.js';

const portOf = (storage: object): AuditPort => {
  const port = auditOf(storage);
  if (!port) throw new Error('This storage has no audit capability (storage.audit: core/ports/audit.ts); skip the group "audit" with its reason if it is not meant to.');
  return port;
};

const entry = (actorId: string, minute: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  id: crypto.randomUUID(), at: at(minute), actor_id: actorId, actor: 'moderator-1', action: 'approve', subject: `listing ${crypto.randomUUID()}`, reason: null, ...overrides,
});

export function auditTests<S extends StoragePort>(): StorageTests<S> {
  return {
    'audit: entries read back field for field, newest first, a page at a time from the last one': async (storage) => {
      const port = portOf(storage);
      const account = await owner(storage);
      const sameMinute = [entry(account.id, 3, { id: '00000000-0000-4000-8000-00000000000a' }), entry(account.id, 3, { id: '00000000-0000-4000-8000-00000000000b', action: 'reject', reason: 'Blurry «images» <b>' })];
      const written = [entry(account.id, 1), ...sameMinute, entry(account.id, 2, { reason: '' })];
      for (const one of written) await port.appendAudit(one);
      const mine = (list: AuditEntry[]) => list.filter((found) => written.some((one) => one.id === found.id));
      const newest = [sameMinute[1]!, sameMinute[0]!, written[3]!, written[0]!];
      assert.deepStrictEqual(mine(await port.listAudit(1000)), newest);
      const first = mine(await port.listAudit(2));
      assert.ok(first.length <= 2);
      const all: AuditEntry[] = [];
      let before: AuditEntry | undefined;
      for (;;) {
        const page = await port.listAudit(2, before && { at: before.at, id: before.id });
        if (page.length === 0) break;
        assert.ok(page.length <= 2);
        all.push(...page);
        before = page[page.length - 1];
      }
      assert.deepStrictEqual(mine(all), newest, 'pages in order, none twice or left out');
    },
    'audit: an entry stays after the account it names is changed': async (storage) => {
      const port = portOf(storage);
      const account = await owner(storage);
      const one = entry(account.id, 5, { action: 'update-account', subject: `account ${account.username}` });
      await port.appendAudit(one);
      await storage.updateAccount(account.id, { is_suspended: true, updated_at: at(6) });
      assert.deepStrictEqual((await port.listAudit(1000)).find((found) => found.id === one.id), one);
    },
  };
}
