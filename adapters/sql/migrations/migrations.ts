import { initial } from './001-initial.js';
import { moderation } from './002-moderation.js';
import { studio } from './003-studio.js';
import { studioKeys } from './004-studio-keys.js';
import { uploadLifecycle } from './005-upload-lifecycle.js';
import { changeVersion } from './006-change-version.js';
import { idempotencyKeys } from './007-idempotency-keys.js';
import { webhooks } from './008-webhooks.js';
import { ownSchema } from './009-own-schema.js';
import { usernamesIgnoreCase } from './010-usernames-ignore-case.js';
import { uploadStates } from './011-upload-states.js';
import { uploadReservations } from './012-upload-reservations.js';
import { listingCounts } from './013-listing-counts.js';
import { callerVersion } from './014-caller-version.js';
import { listMoves } from './015-list-moves.js';
import { eventTraceparent } from './016-event-traceparent.js';
import { uploadStoreKey } from './017-upload-store-key.js';
import { sellerCountShards } from './018-seller-count-shards.js';
import { partialDueIndex } from './019-partial-due-index.js';
import { versions } from './020-versions.js';
import { versionReleaseAndRetention } from './021-version-release-and-retention.js';
import { versionGallery } from './022-version-gallery.js';
import { dashboard } from './023-dashboard.js';
import { rolesAudit } from './024-roles-audit.js';
import { passkeys } from './025-passkeys.js';
import { dashboardSweep } from './026-dashboard-sweep.js';
import { uploadOwners } from './027-upload-owners.js';
import { listingSearch } from './028-listing-search.js';
import type { Migration } from './migration.js';

export type { Migration, MigrationPlace } from './migration.js';

/**
 * Every migration of SQLite and PostgreSQL, in version order: one numbering for both, each
 * migration with its dialects' statements side by side. A migration one database has nothing to
 * do for is recorded there all the same, so that a version means the same on both.
 */
export const migrations: readonly Migration[] = [
  initial,
  moderation,
  studio,
  studioKeys,
  uploadLifecycle,
  changeVersion,
  idempotencyKeys,
  webhooks,
  ownSchema,
  usernamesIgnoreCase,
  uploadStates,
  uploadReservations,
  listingCounts,
  callerVersion,
  listMoves,
  eventTraceparent,
  uploadStoreKey,
  sellerCountShards,
  partialDueIndex,
  versions,
  versionReleaseAndRetention,
  versionGallery,
  dashboard,
  rolesAudit,
  passkeys,
  dashboardSweep,
  uploadOwners,
  listingSearch,
];

export const schemaVersion = migrations[migrations.length - 1]!.version;
