import { ApiError, type ErrorCode } from '../errors.js';

/**
 * A published listing's version (../shared/spec/contract.md, "Versions of a published listing"):
 * its own table of states beside the listing's (core/domain/asset-states.ts). A version is open
 * while it is draft, pending, changes_requested or scheduled (approved, waiting for its
 * release_at: a MarketKit extension): at most one per listing.
 */
export const versionStatuses = ['draft', 'pending', 'approved', 'changes_requested', 'rejected', 'withdrawn', 'superseded', 'scheduled'] as const;
export type VersionStatus = (typeof versionStatuses)[number];

export const openVersionStatuses: readonly VersionStatus[] = ['draft', 'pending', 'changes_requested', 'scheduled'];

/**
 * What can be done to a version: the seller's (update, upload, submit, withdraw), the moderator's
 * (approve, or schedule: an approval before the version's release_at; requestChanges, reject,
 * rollback), the clock's (release: a scheduled version's time came) and what going live does to
 * the live one (supersede).
 */
export const versionActions = ['update', 'upload', 'submit', 'withdraw', 'approve', 'schedule', 'release', 'requestChanges', 'reject', 'supersede', 'rollback'] as const;
export type VersionAction = (typeof versionActions)[number];

const editable = { draft: 'draft', changes_requested: 'changes_requested' } as const;

/** The one transition table of versions: from-state -> next; anything else is 409 INVALID_STATUS. */
const rules: Record<VersionAction, Partial<Record<VersionStatus, VersionStatus>>> = {
  update: editable,
  upload: editable,
  submit: { draft: 'pending', changes_requested: 'pending' },
  withdraw: { draft: 'withdrawn', pending: 'withdrawn', changes_requested: 'withdrawn', scheduled: 'withdrawn' },
  approve: { pending: 'approved' },
  // Approved before its release_at: it waits, the live listing unchanged, until the clock releases it.
  schedule: { pending: 'scheduled' },
  release: { scheduled: 'approved' },
  requestChanges: { pending: 'changes_requested' },
  reject: { pending: 'rejected' },
  // The live version, once another goes live: kept (with its file) for a rollback.
  supersede: { approved: 'superseded' },
  // A superseded version made live again by a moderator.
  rollback: { superseded: 'approved' },
};

const words: Record<VersionAction, string> = {
  update: 'changes',
  upload: 'a new file',
  submit: 'submission',
  withdraw: 'withdrawal',
  approve: 'approval',
  schedule: 'approval',
  release: 'a release',
  requestChanges: 'a request for changes',
  reject: 'rejection',
  supersede: 'being superseded',
  rollback: 'a rollback to it',
};

export function versionTransition(from: VersionStatus, action: VersionAction): { next: VersionStatus } | { refuse: ErrorCode } {
  const next = rules[action][from];
  return next ? { next } : { refuse: 'INVALID_STATUS' };
}

/** The next status for `action`, or 409 INVALID_STATUS saying why. */
export function versionAllowed(version: { status: VersionStatus }, action: VersionAction): VersionStatus {
  const outcome = versionTransition(version.status, action);
  if ('refuse' in outcome) throw new ApiError(outcome.refuse, `A version in status ${version.status} does not allow ${words[action]}.`);
  return outcome.next;
}

export const isOpenVersion = (status: VersionStatus) => openVersionStatuses.includes(status);
