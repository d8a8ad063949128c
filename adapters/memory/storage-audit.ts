import type { AuditEntry, AuditPort } from '../../core/ports/audit.js';
import { copy, type MemoryStorageState } from './storage-state.js';

const newestFirst = (a: AuditEntry, b: AuditEntry) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1);

/** The memory store's audit log (core/ports/audit.ts); each method runs without awaiting, so each is atomic. */
export function auditMethods(s: MemoryStorageState): AuditPort {
  return {
    async appendAudit(entry) {
      s.auditLog.set(entry.id, copy(entry));
    },
    async listAudit(limit, before) {
      const older = (entry: AuditEntry) => !before || entry.at < before.at || (entry.at === before.at && entry.id < before.id);
      return [...s.auditLog.values()].filter(older).sort(newestFirst).slice(0, limit).map(copy);
    },
  };
}
