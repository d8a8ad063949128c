import type { Migration } from './migration.js';

/**
 * A version's new gallery (docs/moderation.md, "Versions"): the images that replace the listing's
 * when it goes live, and a superseded version's the images it took out of service, for a rollback.
 * A column that may be null: every existing version keeps the listing's gallery, as it did.
 */
export const versionGallery: Migration = {
  version: 22,
  name: 'version-gallery',
  sqlite: ['ALTER TABLE asset_versions ADD COLUMN gallery TEXT'],
  postgres: ['ALTER TABLE asset_versions ADD COLUMN gallery JSON'],
};
