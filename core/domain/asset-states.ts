import { ApiError, type ErrorCode } from '../errors.js';

/** Every status a listing can be in. The formal schema of the spec lists five; the contract adds two. */
export const assetStatuses = ['draft', 'pending', 'scheduled', 'published', 'rejected', 'changes_requested', 'archived'] as const;
export type AssetStatus = (typeof assetStatuses)[number];

/**
 * What can be done to a listing. Seller actions come through the developer API; moderation
 * actions belong to the embedding marketplace (approve, reject, requestChanges, archive) or
 * its clock (release).
 */
export const assetActions = [
  'update',
  'delete',
  'requestFileUpload',
  'confirmFile',
  'requestImageUpload',
  'confirmImage',
  'arrangeImages',
  'submit',
  'submitScheduled',
  'approve',
  'reject',
  'requestChanges',
  'archive',
  'release',
] as const;
export type AssetAction = (typeof assetActions)[number];

export type Transition = { readonly next: AssetStatus } | { readonly refuse: ErrorCode };

interface ActionRule {
  /** From-state -> next state; a state absent here is refused. */
  readonly allow: Partial<Record<AssetStatus, AssetStatus>>;
  /** Refusals with a code of their own; the rest get `otherwise`. */
  readonly refuse?: Partial<Record<AssetStatus, ErrorCode>>;
  readonly otherwise: ErrorCode;
}

const editable = { draft: 'draft', rejected: 'rejected', changes_requested: 'changes_requested' } as const;

/**
 * The one transition table. Every operation that touches a listing's status, or that a status
 * may forbid, asks `transition()`; nothing else decides.
 */
const rules: Record<AssetAction, ActionRule> = {
  update: { allow: { ...editable, published: 'published' }, otherwise: 'INVALID_STATUS' },
  // A deleted listing has no next state: "draft -> draft" only marks the deletion as allowed.
  delete: { allow: { draft: 'draft' }, otherwise: 'NOT_DRAFT' },
  requestFileUpload: { allow: editable, refuse: { published: 'LISTING_IS_LIVE' }, otherwise: 'INVALID_STATUS' },
  confirmFile: { allow: editable, refuse: { published: 'LISTING_IS_LIVE' }, otherwise: 'INVALID_STATUS' },
  requestImageUpload: { allow: { ...editable, published: 'published' }, otherwise: 'INVALID_STATUS' },
  confirmImage: { allow: { ...editable, published: 'published' }, otherwise: 'INVALID_STATUS' },
  // The gallery's order changes where an image may be added: the same states, for the same reasons.
  arrangeImages: { allow: { ...editable, published: 'published' }, otherwise: 'INVALID_STATUS' },
  submit: { allow: { draft: 'pending', rejected: 'pending', changes_requested: 'pending' }, otherwise: 'INVALID_STATUS' },
  submitScheduled: { allow: { draft: 'scheduled', rejected: 'scheduled', changes_requested: 'scheduled' }, otherwise: 'INVALID_STATUS' },
  approve: { allow: { pending: 'published' }, otherwise: 'INVALID_STATUS' },
  reject: { allow: { pending: 'rejected' }, otherwise: 'INVALID_STATUS' },
  requestChanges: { allow: { pending: 'changes_requested' }, otherwise: 'INVALID_STATUS' },
  archive: { allow: { published: 'archived' }, otherwise: 'INVALID_STATUS' },
  release: { allow: { scheduled: 'pending' }, otherwise: 'INVALID_STATUS' },
};

/** The outcome of `action` on a listing in `from`: the next status, or the code of the refusal. */
export function transition(from: AssetStatus, action: AssetAction): Transition {
  const rule = rules[action];
  const next = rule.allow[from];
  if (next) return { next };
  return { refuse: rule.refuse?.[from] ?? rule.otherwise };
}

/** The statuses from which `action` is allowed, for documentation and messages. */
export function statusesAllowing(action: AssetAction): AssetStatus[] {
  return assetStatuses.filter((status) => rules[action].allow[status] !== undefined);
}

/** The next status for `action`, or the table's refusal as an ApiError (the one every surface renders). */
export function allowed(asset: { status: AssetStatus }, action: AssetAction): AssetStatus {
  const outcome = transition(asset.status, action);
  if ('refuse' in outcome) throw new ApiError(outcome.refuse, outcome.refuse === 'INVALID_STATUS' ? `A listing in status ${asset.status} does not allow ${actionWords[action]}.` : undefined);
  return outcome.next;
}

/** Each action in the words of a refusal's message. */
const actionWords: Record<AssetAction, string> = {
  update: 'changes',
  delete: 'deletion',
  requestFileUpload: 'a new file',
  confirmFile: 'a new file',
  requestImageUpload: 'new images',
  confirmImage: 'new images',
  arrangeImages: 'a new order of its images',
  submit: 'submitting',
  submitScheduled: 'submitting',
  approve: 'approval',
  reject: 'rejection',
  requestChanges: 'a request for changes',
  archive: 'archiving',
  release: 'release',
};
