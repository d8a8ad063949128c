import { transition } from '../domain/asset-states.js';
import { ApiError, invalidInput } from '../errors.js';
import { BlobTooLargeError, type BlobInfo, type ByteStream } from '../ports/blobs.js';
import { resumableOf } from '../ports/resumable-blobs.js';
import { hashedBody } from '../uploads/hashed-body.js';
import { QuotaRefusedError, reservedBody } from '../uploads/reserved-body.js';
import { oneShotSha256 } from '../uploads/sha256.js';
import { newUploadState, progressOf } from '../uploads/upload-states.js';
import type { UploadStateRecord } from '../ports/upload-state.js';
import type { AccountRecord, AccountsPort, IssuedUploadRecord, LeasePort, ListingsPort, UploadsPort } from '../ports/storage.js';
import type { PortsWith, Settings } from './context.js';
import { versionsOf } from '../ports/versions.js';
import { versionTransition } from '../domain/version-states.js';
import { versionOfPath } from '../versions/version-records.js';

/**
 * What the life of an upload uses: its records and their leases, the listing and account that own
 * it, the bytes, where uploads in progress stand, and the clock.
 */
export type UploadPorts = PortsWith<UploadsPort & LeasePort & Pick<ListingsPort, 'getAsset'> & Pick<AccountsPort, 'getAccount'>, 'blobs' | 'uploadStates' | 'clock' | 'hashing' | 'ids'>;

/**
 * The life of an upload (docs/security.md, "Uploads"). A signed URL's bytes land under a staging
 * key that nothing serves and no record points at; confirm moves them to the storage path, which
 * no URL names. So no URL, replayed or not, can change what a confirmed file or image holds, on
 * any blob store, even S3, whose presigned URLs cannot be revoked. Through the core's own upload
 * route a URL also takes one completed upload only, and only while its listing accepts new bytes
 * and its account may write.
 */
export function stagingKey(storagePath: string): string {
  return `staging/${storagePath}`;
}

/**
 * Where a resumable upload keeps its bytes and completes them (the state's `store_key`;
 * docs/uploads.md, "Where the bytes are kept"): a listing's file at its storage path itself, so that
 * confirm-file moves nothing (on S3 a multipart upload completes only at the key it began at, and
 * copying a 20 GiB pack once more takes minutes). No URL names that path, only the core's appends
 * write it, and nothing serves a file before it is confirmed. An image stays under the staging key
 * (null), like a single PUT's bytes: its storage path may be served publicly (a CDN in front of
 * `assets/*\/images/`), so its bytes get there only after confirm-image has checked them.
 */
export function resumableKey(upload: Pick<IssuedUploadRecord, 'kind' | 'storage_path'>): string | null {
  return upload.kind === 'file' ? upload.storage_path : null;
}

/** The key an upload's bytes in progress are at: its state's store_key, else the staging key. */
export function keptAt(storagePath: string, state: UploadStateRecord | null): string {
  return state?.store_key ?? stagingKey(storagePath);
}

/** RFC 9110 token characters; a media type is `type/subtype` of them, with optional `; name=value` parameters. */
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const mediaTypePattern = new RegExp(`^(${token})/(${token})((?:[ \\t]*;[ \\t]*${token}=(?:${token}|"(?:[^"\\\\\\x00-\\x1f]|\\\\.)*"))*)[ \\t]*$`);

/** The image types an image URL takes (image/jpg, which browsers and tools still send, as image/jpeg). */
export const imageTypes: ReadonlySet<string> = new Set(['image/webp', 'image/png', 'image/jpeg']);

/**
 * The Content-Type a PUT to a signed URL declares, as stored: `type/subtype` in lower case with its
 * parameters as sent; `application/octet-stream` when none is sent. Not a media type, or a
 * wildcard (`*\/*`, `image/*`: a range, which says what a client accepts, not what it sends), is
 * 400 naming Content-Type; on an image URL anything but WebP, PNG or JPEG is 415
 * (docs/rest.md, "Uploads").
 */
export function declaredUploadType(header: string | null, kind: IssuedUploadRecord['kind']): string {
  if (header === null || header.trim() === '') return 'application/octet-stream';
  const match = header.length <= 200 ? mediaTypePattern.exec(header.trim()) : null;
  if (!match || match[1] === '*' || match[2] === '*') {
    throw invalidInput('Content-Type', 'must be one media type such as application/zip or image/png (not a wildcard), at most 200 characters');
  }
  let type = `${match[1]!.toLowerCase()}/${match[2]!.toLowerCase()}`;
  if (type === 'image/jpg') type = 'image/jpeg';
  if (kind === 'image' && !imageTypes.has(type)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `An image upload is image/webp, image/png or image/jpeg, not ${type}.`);
  }
  return type + match[3]!.trim();
}

const confirmAction = (kind: IssuedUploadRecord['kind']) => (kind === 'file' ? 'confirmFile' : 'confirmImage');

const urlUsed = () => new ApiError('FORBIDDEN', 'This upload URL has been used: a URL takes one upload. Ask upload-url for a new one.');
const listingGone = () => new ApiError('NOT_FOUND', 'This upload URL belongs to a listing that no longer exists.');

function quotaExceeded(quota: number, field?: string): ApiError {
  const message = `This upload would take the account past its storage quota of ${quota} bytes; delete drafts or files it no longer needs.`;
  return new ApiError('STORAGE_QUOTA_EXCEEDED', field ? `${field}: ${message}` : message, field ? { details: [{ path: field, message }] } : {});
}

/** The account that owns the upload's listing, or why the upload can no longer take bytes. */
export async function openOwner(ports: UploadPorts, upload: IssuedUploadRecord): Promise<AccountRecord> {
  const asset = await ports.storage.getAsset(upload.asset_id);
  if (!asset) throw listingGone();
  const closed = (why: string) => new ApiError('FORBIDDEN', `This upload URL no longer works: ${why}.`);
  const ofVersion = versionOfPath(upload.storage_path);
  if (ofVersion) {
    // A version's file: its version must still take a new file (draft or changes_requested), whatever the listing's status.
    const version = await versionsOf(ports.storage)?.getVersion(ofVersion.versionId);
    if (!version || version.asset_id !== asset.id) throw listingGone();
    if ('refuse' in versionTransition(version.status, 'upload')) throw closed(`its version is ${version.status}`);
  } else if ('refuse' in transition(asset.status, confirmAction(upload.kind))) throw closed(`its listing is ${asset.status}`);
  const owner = await ports.storage.getAccount(asset.owner_id);
  if (!owner || owner.is_suspended) throw closed('its account is suspended');
  if (owner.is_restricted) throw closed('its account is restricted');
  return owner;
}

/**
 * A PUT to a signed URL of the core's own route (the signature already checked): the body goes to
 * the staging key, once. The upload is claimed (issued -> receiving) before a byte is written and
 * marked uploaded after the last. Its bytes are reserved against the account's quota before they
 * are written (a declared Content-Length at once, else as they arrive: reserved-body.ts) and the
 * reservation settles to the size written; a body that fails gives the claim and the reservation
 * back. When the listing was deleted meanwhile, the bytes just written are removed here: a PUT
 * racing a DELETE leaves nothing.
 */
export async function receiveUpload(
  ports: UploadPorts,
  settings: Settings,
  storagePath: string,
  body: { stream: ByteStream; contentType: string | null; declaredLength: number | null; maxBytes: number },
): Promise<BlobInfo> {
  const upload = await ports.storage.getUpload(storagePath);
  if (!upload) throw listingGone();
  if (upload.state !== 'issued') throw urlUsed();
  const contentType = declaredUploadType(body.contentType, upload.kind);
  await openOwner(ports, upload);
  if (body.declaredLength !== null && body.declaredLength > body.maxBytes) throw tooLarge(body.maxBytes);
  if (!(await ports.storage.setUploadState(storagePath, ['issued'], 'receiving'))) throw urlUsed();
  const quota = settings.storageQuotaBytes;
  const reserve = (bytes: number) => ports.storage.reserveUpload(storagePath, bytes, quota);
  const giveBack = async () => {
    // The PUT's own error is the answer. A store that cannot take these back leaves the upload
    // 'receiving' (its URL spent) with its reservation, until the upload sweep removes it after its URL's life.
    await ports.storage.reserveUpload(storagePath, 0, null).catch(() => {});
    await ports.storage.setUploadState(storagePath, ['receiving'], 'issued').catch(() => {});
  };
  let info: BlobInfo;
  // The SHA-256 is taken as the bytes go by: kept with the upload's state for confirm-file.
  const hasher = await oneShotSha256(ports.hashing);
  try {
    // A declared upload (upload-url's file_size) keeps its whole size reserved, even for a chunked body.
    const reserved = body.declaredLength ?? (await ports.uploadStates.get(storagePath))?.length ?? 0;
    if (!(await reserve(reserved))) throw new QuotaRefusedError();
    const stream = reservedBody(hashedBody(body.stream, hasher), reserved, reserve, body.maxBytes);
    info = await ports.blobs.put(stagingKey(storagePath), stream, { contentType, maxBytes: body.maxBytes });
  } catch (error) {
    await giveBack();
    if (error instanceof QuotaRefusedError) throw quotaExceeded(quota!);
    throw error instanceof BlobTooLargeError ? tooLarge(body.maxBytes) : error;
  }
  if (!(await ports.storage.setUploadState(storagePath, ['receiving'], 'uploaded', info.size))) {
    // The listing is gone: its uploads are garbage the upload sweep removes, bytes and all, if this delete fails.
    await ports.blobs.delete(stagingKey(storagePath)).catch(() => {});
    throw listingGone();
  }
  await reserve(info.size);
  await keepDigest(ports, upload, info.size, hasher.hex());
  return info;
}

/** Records the digest of a completed single PUT in the upload's state (made here unless upload-url made it). */
async function keepDigest(ports: UploadPorts, upload: IssuedUploadRecord, size: number, sha256: string): Promise<void> {
  const now = new Date(ports.clock.now()).toISOString();
  // A single PUT's bytes are under the staging key, even where upload-url made the state for a resumable upload.
  const change = { offset: size, hash_state: null, sha256, parts: [], store_upload_id: null, store_key: null, updated_at: now };
  const existing = await ports.uploadStates.get(upload.storage_path);
  if (existing) await ports.uploadStates.advance(upload.storage_path, existing.offset, change);
  else await ports.uploadStates.create({ ...newUploadState(upload.storage_path, size, upload.expires_at, now), ...change });
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The upload must be at most ${maxBytes} bytes.`);
}

/**
 * upload-url's check of a declared size (docs/uploads.md, "Limits"): over the limit is 413
 * PAYLOAD_TOO_LARGE naming `file_size`. The bound the URLs are then signed with: the declared
 * size, else the limit.
 */
export function boundDeclaredSize(declared: number | undefined, maxBytes: number): number {
  if (declared === undefined) return maxBytes;
  if (declared > maxBytes) {
    const message = `must be at most ${maxBytes} bytes (the size limit)`;
    throw new ApiError('PAYLOAD_TOO_LARGE', `file_size ${message}`, { details: [{ path: 'file_size', message }] });
  }
  return declared;
}

/**
 * Reserves an issued upload's declared size against the account's quota (upload-url's `file_size`,
 * a tus creation's Upload-Length), atomically: refused, 413 STORAGE_QUOTA_EXCEEDED (naming `field`
 * when given), and nothing reserved.
 */
export async function reserveDeclared(ports: UploadPorts, settings: Settings, storagePath: string, bytes: number, field?: string): Promise<void> {
  if (await ports.storage.reserveUpload(storagePath, bytes, settings.storageQuotaBytes)) return;
  throw quotaExceeded(settings.storageQuotaBytes!, field);
}

/**
 * Confirm's half of the life: checks the staged bytes (`accept` refuses with a 400 of its own),
 * the size limit and the account's quota, then moves them to the storage path, out of reach of
 * any URL. What was moved is checked against what was accepted: on S3 a replayed presigned PUT can
 * still rewrite the staging key until the move, and its bytes are then refused, never confirmed.
 */
export async function takeStagedUpload(
  ports: UploadPorts,
  settings: Settings,
  upload: IssuedUploadRecord,
  options: {
    maxBytes: number;
    accept: (staged: BlobInfo, staging: string) => Promise<void> | void;
    /** The upload's state when the caller has read it already (confirm-file, for its digest). */
    state?: UploadStateRecord | null;
  },
): Promise<BlobInfo> {
  const field = upload.kind === 'file' ? 'storage_path' : 'public_url';
  const missing = () => invalidInput(field, `has no uploaded ${upload.kind} yet: PUT the ${upload.kind} to signed_url first`);
  if (ports.clock.now() > Date.parse(upload.expires_at) + settings.uploadGraceMs / 2) {
    throw invalidInput(field, 'expired before it was confirmed: ask for a new upload URL and upload again');
  }
  const staging = stagingKey(upload.storage_path);
  // Through the core's route an upload counts once it completed; a store's own URLs cannot tell us.
  const direct = ports.blobs.issueDirectUpload !== undefined;
  const known = options.state !== undefined ? options.state : upload.state === 'uploaded' || upload.state === 'appending' ? await ports.uploadStates.get(upload.storage_path) : null;
  if (upload.state === 'appending' && (await settleLastAppend(ports, upload, known))) upload = { ...upload, state: 'uploaded' };
  if (!direct && upload.state !== 'uploaded') throw missing();
  // A resumable upload of a file completed at the storage path: there is nothing to move.
  const state = upload.state !== 'uploaded' ? null : known;
  let inPlace = state !== null && state.store_key === upload.storage_path && state.offset === state.length;
  let staged = await ports.blobs.head(inPlace ? upload.storage_path : staging);
  if (!staged && !inPlace) {
    // A confirm whose change then failed (the storage unreachable for a moment) moved the bytes
    // already: they are at the storage path, never confirmed, and a retry takes them there.
    staged = await ports.blobs.head(upload.storage_path);
    inPlace = staged !== null;
  }
  const at = inPlace ? upload.storage_path : staging;
  if (!staged) throw missing();
  if (staged.size > options.maxBytes) {
    // Only a store's own URL (or a limit lowered since) can get here: it can never be confirmed, so
    // what a failed delete leaves the upload sweep removes once its URL has expired.
    await ports.blobs.delete(at).catch(() => {});
    throw new ApiError('PAYLOAD_TOO_LARGE', `The upload must be at most ${options.maxBytes} bytes; it has ${staged.size}. Upload a smaller file.`);
  }
  await options.accept(staged, at);
  // The staged bytes become the upload's reservation, atomically: through the core's route they were
  // reserved as they arrived (this only settles); a store's own URL reserved nothing, and bytes the
  // quota has no room for are removed, so nothing past the quota is kept.
  if (settings.storageQuotaBytes !== null && !(await ports.storage.reserveUpload(upload.storage_path, staged.size, settings.storageQuotaBytes))) {
    // Never confirmed: what a failed delete leaves the upload sweep removes once the URL has expired.
    if (direct) await ports.blobs.delete(staging).catch(() => {});
    throw quotaExceeded(settings.storageQuotaBytes);
  }
  if (inPlace) {
    // Bytes a store's own URL put under the staging key as well lose to the completed upload; a failed
    // delete leaves them until the upload goes (the sweep removes both keys of an upload).
    if (direct) await ports.blobs.delete(staging).catch(() => {});
    return staged;
  }
  const moved = await ports.blobs.move(staging, upload.storage_path);
  if (!moved) throw missing();
  if (moved.size !== staged.size) {
    // Never confirmed: what a failed delete leaves the upload sweep removes once the URL has expired.
    await ports.blobs.delete(upload.storage_path).catch(() => {});
    throw invalidInput(field, 'changed while it was being confirmed: ask for a new upload URL and upload again');
  }
  return moved;
}

/**
 * An append's last byte is recorded in two writes: the upload's state (offset = length, its
 * SHA-256) and then the issued upload (`uploaded`). A process killed between them left an upload
 * that HEAD reports complete, whose client has nothing left to send, and that confirm refused for
 * ever ("no uploaded file yet"). The state is the record of the bytes: complete, with its digest,
 * it is uploaded, and confirm finishes the second write itself. True when it is uploaded now.
 */
async function settleLastAppend(ports: UploadPorts, upload: IssuedUploadRecord, state: UploadStateRecord | null | undefined): Promise<boolean> {
  if (!state || state.length === null || state.offset !== state.length || state.sha256 === null) return false;
  if (await ports.storage.setUploadState(upload.storage_path, ['appending'], 'uploaded', state.offset)) return true;
  // Someone else finished it meanwhile (a concurrent confirm): what the record says now decides.
  return (await ports.storage.getUpload(upload.storage_path))?.state === 'uploaded';
}

/** A resumable upload's bytes in progress go (S3: its multipart upload is aborted, by the id its state keeps), then its state. */
export async function abortResumable(ports: UploadPorts, path: string): Promise<void> {
  const state = await ports.uploadStates.get(path);
  await resumableOf(ports.blobs)?.abort(keptAt(path, state), state && progressOf(state));
  await ports.uploadStates.delete(path);
}

/** Removes an upload's blobs (both keys) and forgets it: for bytes that will never be confirmed. */
export async function discardUploads(ports: UploadPorts, storagePaths: readonly string[]): Promise<void> {
  const settled = await Promise.allSettled(
    storagePaths.flatMap((path) => [ports.blobs.delete(path), ports.blobs.delete(stagingKey(path)), abortResumable(ports, path)]),
  );
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  await ports.storage.forgetUploads(storagePaths);
}
