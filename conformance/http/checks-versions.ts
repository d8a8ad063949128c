/**
 * Checks of a published listing's versions (our extension: docs/moderation.md, "Versions"; the
 * contract's "Versions of a published listing"), on the --published-asset listing: not certified on
 * a server without them. Every version made here is withdrawn before the check ends, so the
 * listing is left as it was found (a withdrawn version stays in its history, as any would).
 */
import { createHash } from 'node:crypto';
import { ensure, expectError, expectStatus, NotCertified, sampleBytes, uuidPattern, type Check } from './check.js';

export const versionChecks: Check[] = [
  {
    id: 'rest.versions',
    title: 'a new version of a published listing: created beside the live one, its rules, its file with the SHA-256, submitted, withdrawn',
    requirements: ['VERSION-CREATE', 'VERSION-RULES', 'VERSION-FILE', 'VERSION-LIVE-UNCHANGED'],
    unavailable: (ctx) => (ctx.settings.publishedAssetId ? null : 'needs --published-asset (a published listing of the --token seller)'),
    async run({ client, fixtures, settings }) {
      const id = settings.publishedAssetId!;
      const before = await client.get(`/assets/${id}`, fixtures.seller);
      ensure('VERSION-LIVE-UNCHANGED', before.status === 200 && before.body.status === 'published', 'the --published-asset listing to be published', before);
      if (before.body.pending_version) throw new NotCertified(`the --published-asset listing has an open version (${before.body.pending_version.id}): withdraw it first`);
      // Higher than any version string a person would have given it, and new on every run.
      const version = `${Date.now()}.0.0`;
      const created = await client.post(`/assets/${id}/versions`, fixtures.seller, { version, release_notes: 'conformance' });
      if (created.status === 404 && created.body?.code === 'NOT_FOUND') throw new NotCertified('the server keeps no versions of published listings (an extension: docs/moderation.md)');
      expectStatus('VERSION-CREATE', created, 201);
      ensure('VERSION-CREATE', uuidPattern.test(created.body?.id) && created.body.status === 'draft' && created.body.version === version, 'a draft version with its id and version string', created);
      const vid = created.body.id as string;
      try {
        expectError('VERSION-RULES', await client.post(`/assets/${id}/versions`, fixtures.seller, { version: `${Date.now() + 1}.0.0` }), 409, 'CONFLICT');
        expectError('VERSION-RULES', await client.post(`/assets/${id}/versions`, fixtures.seller, { version: 'not a version' }), 400, 'INVALID_INPUT', 'version');
        expectError('VERSION-RULES', await client.post(`/assets/${id}/versions/${vid}/submit`, fixtures.seller), 422, 'NO_FILE');
        const issued = await client.post(`/assets/${id}/versions/${vid}/upload-url`, fixtures.seller, { filename: 'conformance-version.zip' });
        expectStatus('VERSION-FILE', issued, 200);
        expectStatus('VERSION-FILE', await client.put(issued.body.signed_url, sampleBytes.zip, 'application/zip'), [200, 201, 204]);
        const confirm = (sha256: string) => client.post(`/assets/${id}/versions/${vid}/confirm-file`, fixtures.seller, { storage_path: issued.body.storage_path, file_size: sampleBytes.zip.byteLength, sha256 });
        const digest = createHash('sha256').update(sampleBytes.zip).digest('hex');
        const wrong = await confirm('0'.repeat(64));
        // A store that took the bytes itself (S3's own URL) cannot check the digest: the wrong one is then not refused here.
        if (wrong.status !== 200) expectError('VERSION-FILE', wrong, 422, 'CHECKSUM_MISMATCH');
        else ensure('VERSION-FILE', wrong.body?.file?.sha256 === null, 'a wrong sha256 to be refused unless the server computed no digest', wrong);
        if (wrong.status !== 200) expectStatus('VERSION-FILE', await confirm(digest), 200);
        const submitted = await client.post(`/assets/${id}/versions/${vid}/submit`, fixtures.seller);
        expectStatus('VERSION-CREATE', submitted, 200);
        ensure('VERSION-CREATE', ['pending', 'approved'].includes(submitted.body?.status), 'the version pending review (or approved, on a server that approves every submission)', submitted);
        if (submitted.body.status === 'pending') {
          const live = await client.get(`/assets/${id}`, fixtures.seller);
          ensure('VERSION-LIVE-UNCHANGED', live.body?.status === 'published' && live.body.version === before.body.version && JSON.stringify(live.body.file) === JSON.stringify(before.body.file), 'the live listing unchanged while the version waits', live);
          ensure('VERSION-LIVE-UNCHANGED', live.body.pending_version?.id === vid && live.body.pending_version.status === 'pending', 'pending_version naming the version', live);
        }
      } finally {
        await client.post(`/assets/${id}/versions/${vid}/withdraw`, fixtures.seller);
      }
      const after = await client.get(`/assets/${id}/versions/${vid}`, fixtures.seller);
      if (after.body?.status !== 'approved') ensure('VERSION-CREATE', after.body?.status === 'withdrawn', 'the version withdrawn at the end', after);
    },
  },
];
