import type { Migration } from './migration.js';

/**
 * A version approved before its release_at waits as `scheduled` (docs/moderation.md, "Versions"),
 * and counts as the listing's open version until it goes live: the partial unique index that keeps
 * one open version per listing (migration 20) takes `scheduled` in. No row is `scheduled` before
 * this migration, so the new index holds on every existing database. The release job reads the due
 * scheduled versions by release_at, and the retention of superseded files the superseded ones by
 * when they were superseded: an index each, so neither sorts nor scans.
 */
const statements = [
  `DROP INDEX asset_versions_open`,
  `CREATE UNIQUE INDEX asset_versions_open ON asset_versions (asset_id) WHERE status IN ('draft', 'pending', 'changes_requested', 'scheduled')`,
  `CREATE INDEX asset_versions_due ON asset_versions (status, release_at, id)`,
  `CREATE INDEX asset_versions_superseded ON asset_versions (status, updated_at, id)`,
];

export const versionReleaseAndRetention: Migration = {
  version: 21,
  name: 'version-release-and-retention',
  sqlite: statements,
  postgres: statements,
};
