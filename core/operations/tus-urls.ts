import type { UploadSigner } from './blob-urls.js';

/** Where the tus surface (core/http/tus-surface.ts) serves every issued upload as a resumable upload resource. */
export const tusPrefix = '/api/v1/uploads/';
/** What a tus URL's signature covers: the storage path under its own name, so a signed_url's signature never passes here. */
export const tusSignedPath = (storagePath: string) => `tus:${storagePath}`;

/** The upload_url of an issued upload. */
export async function tusUploadUrl(siteUrl: string, signer: UploadSigner, storagePath: string, grant: { expiresAtMs: number; maxBytes: number }): Promise<string> {
  const path = tusPrefix + storagePath.split('/').map(encodeURIComponent).join('/');
  return `${siteUrl}${path}?${await signer.sign(tusSignedPath(storagePath), grant)}`;
}

