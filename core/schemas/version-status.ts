/** A version's status and review, as a listing's detail shows its open version (kept apart from version.ts, which builds on the listing's schemas). */
import { Type } from '@sinclair/typebox';
import { versionStatuses } from '../domain/version-states.js';
import { Nullable, Strict, StringEnum, Timestamp, Uuid } from './common.js';

export const VersionStatusSchema = StringEnum(versionStatuses, {
  description:
    'draft (being prepared), pending (in review), approved (the live version), changes_requested, rejected, withdrawn (by its seller), superseded (a later version went live; kept for a rollback), ' +
    'scheduled (approved before its release_at: it goes live then; a MarketKit extension).',
});

const versionDecision = {
  decision: StringEnum(['approved', 'changes_requested', 'rejected', 'rolled_back'] as const),
  reason: Nullable(Type.String()),
  reviewed_at: Timestamp(),
};

export const VersionReviewSchema = Strict({
  ...versionDecision,
  earlier: Type.Array(Strict(versionDecision), { description: 'The decisions on this version before this one, oldest first (at most 20): its review history.' }),
});

/** The open version on its listing, as its owner sees it (GET /assets/{id}: pending_version). */
export const PendingVersionSchema = Strict(
  { id: Uuid(), version: Type.String(), status: VersionStatusSchema, review: Nullable(VersionReviewSchema) },
  { description: 'The open (draft, pending, changes_requested or scheduled) version of this published listing; null when there is none.' },
);

