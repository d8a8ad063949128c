/**
 * The audit log (docs/dashboard.md, "Roles"; ../shared/spec/contract.md, "The dashboard": "every
 * dashboard action an operator or moderator takes is written to an audit log"), a capability port
 * of a storage (`storage.audit`, found by auditOf) as the dashboard's is. Entries are appended,
 * never changed, and read newest first.
 */

export interface AuditEntry {
  id: string;
  /** When the action was taken (ISO time). */
  at: string;
  /** Who took it: the account's id and its username as it was. */
  actor_id: string;
  actor: string;
  /** The action's name: an admin action's (`approve`, `reject-version`, `update-account`). */
  action: string;
  /** What it acted on: `listing <id>`, `version <id>`, `account <username>`. */
  subject: string;
  /** The reason given (the seller reads it), or null. */
  reason: string | null;
}

/** Where a page of the log starts: after this entry (the last of the page before). */
export interface AuditPosition {
  at: string;
  id: string;
}

export interface AuditPort {
  appendAudit(entry: AuditEntry): Promise<void>;
  /** Up to `limit` entries, newest first (by at, then id), older than `before` when given. */
  listAudit(limit: number, before?: AuditPosition): Promise<AuditEntry[]>;
}

/** The audit capability of a storage, when it has one. */
export function auditOf(storage: object): AuditPort | undefined {
  const found = (storage as { audit?: AuditPort }).audit;
  return found && typeof found.appendAudit === 'function' ? found : undefined;
}
