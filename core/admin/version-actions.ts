/**
 * The admin surface's actions on versions of published listings (docs/moderation.md, "Versions"):
 * their queue, the review of what one changes, and the moderators' decisions, each run through the
 * same core functions as `marketplace.moderation.versions`.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.js';
import { createVersionModeration } from '../operations/version-moderation.js';
import type { Ports } from '../operations/context.js';
import { reviewVersion, VersionReviewReportSchema } from '../moderation/version-review.js';
import { Strict, Timestamp } from '../schemas/common.js';
import { VersionSchema } from '../schemas/version.js';
import { versionView } from '../versions/version-records.js';
import { Reason, ReasonBody } from './schemas.js';

/** The part of an admin action this table fills (core/admin/actions.ts, AdminAction). */
interface VersionAction {
  name: string;
  summary: string;
  method: 'GET' | 'POST';
  path: string;
  params?: Record<string, string>;
  body?: TSchema;
  query?: TSchema;
  response: TSchema;
  errors: ErrorCode[];
  tag: 'Moderation';
  run(context: { ports: Ports }, params: Record<string, string>, input: never): Promise<unknown>;
}

const RollbackBody = Strict({ reason: Type.Optional(Reason) });
const ApproveVersionBody = Strict({
  release_at: Type.Optional(
    Timestamp('A time in the future (ISO 8601, e.g. 2030-01-31T09:00:00Z): the version is scheduled and goes live then, this time replacing the seller’s release_at. Left out: live at once, or at the seller’s release_at when that is ahead.'),
  ),
});
const versionParam = { id: 'The version id.' };
const decisionErrors: ErrorCode[] = ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT'];

const moderationOf = (context: { ports: Ports }) => createVersionModeration(context.ports);

export const versionActions: VersionAction[] = [
  {
    name: 'version-review',
    summary: 'What a version changes: its field changes against the live listing, both files, and the zip entries added, removed and changed',
    method: 'GET',
    path: '/versions/{id}/review',
    params: versionParam,
    response: VersionReviewReportSchema,
    errors: ['NOT_FOUND'],
    tag: 'Moderation',
    run: (context, { id }) => reviewVersion(context.ports, id!),
  },
  {
    name: 'approve-version',
    summary: 'Make a pending version live (approved): its file, version string and changes become the listing’s in one commit; with release_at, scheduled to go live at that time',
    method: 'POST',
    path: '/versions/{id}/approve',
    params: versionParam,
    body: ApproveVersionBody,
    response: VersionSchema,
    errors: decisionErrors,
    tag: 'Moderation',
    run: async (context, { id }, input: Static<typeof ApproveVersionBody>) =>
      versionView(await moderationOf(context).approve(id!, input?.release_at === undefined ? {} : { releaseAt: input.release_at })),
  },
  {
    name: 'request-version-changes',
    summary: 'Send a pending version back to its seller with a reason (pending -> changes_requested)',
    method: 'POST',
    path: '/versions/{id}/request-changes',
    params: versionParam,
    body: ReasonBody,
    response: VersionSchema,
    errors: decisionErrors,
    tag: 'Moderation',
    run: async (context, { id }, input: Static<typeof ReasonBody>) => versionView(await moderationOf(context).requestChanges(id!, input.reason)),
  },
  {
    name: 'reject-version',
    summary: 'Reject a pending version with a reason the seller reads (pending -> rejected); the live listing is unchanged',
    method: 'POST',
    path: '/versions/{id}/reject',
    params: versionParam,
    body: ReasonBody,
    response: VersionSchema,
    errors: decisionErrors,
    tag: 'Moderation',
    run: async (context, { id }, input: Static<typeof ReasonBody>) => versionView(await moderationOf(context).reject(id!, input.reason)),
  },
  {
    name: 'rollback',
    summary: 'Make a listing’s previous version live again (its file, version string and fields); the live one becomes superseded',
    method: 'POST',
    path: '/assets/{id}/rollback',
    params: { id: 'The listing id.' },
    body: RollbackBody,
    response: VersionSchema,
    errors: decisionErrors,
    tag: 'Moderation',
    run: async (context, { id }, input: Static<typeof RollbackBody>) => versionView(await moderationOf(context).rollback(id!, input?.reason)),
  },
];
