/**
 * The audit log (core/ports/audit.ts) on SQLite and PostgreSQL: appended rows, read newest first
 * by the index on (at, id) (migration 24).
 */
import type { AuditPort } from '../../core/ports/audit.js';
import { recordReader } from './rows.js';
import type { SqlDatabase } from './session.js';
import { insertInto } from './statements.js';
import { auditLog, encode } from './tables.js';

export const auditStatements = {
  insertAudit: insertInto(auditLog),
  listAudit: 'SELECT * FROM audit_log ORDER BY at DESC, id DESC LIMIT ?',
  listAuditBefore: 'SELECT * FROM audit_log WHERE (at, id) < (?, ?) ORDER BY at DESC, id DESC LIMIT ?',
};

export function auditMethods(db: SqlDatabase): AuditPort {
  const s = auditStatements;
  const read = recordReader(db);
  return {
    appendAudit: async (entry) => void (await db.run(s.insertAudit, encode(db.dialect, auditLog, entry))),
    listAudit: (limit, before) => (before ? read.all(auditLog, s.listAuditBefore, before.at, before.id, limit) : read.all(auditLog, s.listAudit, limit)),
  };
}
