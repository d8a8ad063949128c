/**
 * The resumable upload of an issued upload (docs/uploads.md, "Resumable uploads"): created with its
 * length (by upload-url when file_size is declared, else by the tus creation POST), appended to in
 * order by any instance that holds its lease, its SHA-256 state saved with each durable offset,
 * and completed where its state's store_key says: a file at its storage path (confirm-file then
 * moves nothing), an image into the staging key the single PUT also fills (upload-lifecycle.ts,
 * resumableKey).
 */
import { ApiError } from '../errors.js';
import type { ByteStream } from '../ports/blobs.js';
import type { IssuedUploadRecord } from '../ports/records.js';
import { AppendRefusedError, resumableOf, type ResumableBlobs } from '../ports/resumable-blobs.js';
import type { UploadStateRecord } from '../ports/upload-state.js';
import type { Ports, Settings } from './context.js';
import { discardUploads, keptAt, openOwner, reserveDeclared, resumableKey, tooLarge } from './upload-lifecycle.js';
import { hashedBody } from '../uploads/hashed-body.js';
import { oneShotSha256 } from '../uploads/sha256.js';
import { appendHashing } from '../uploads/append-hashing.js';
import { newUploadState, progressOf } from '../uploads/upload-states.js';


export function resumableStore(ports: Ports): ResumableBlobs {
  const store = resumableOf(ports.blobs);
  if (!store) throw new ApiError('NOT_FOUND', 'This blob store takes uploads through signed_url only.');
  return store;
}


/**
 * Creates the upload's state with its length, once: the same length again answers the same (a
 * client retrying its creation); another is 409. Over the URL's bound is 413; over the account's
 * remaining quota is 413 STORAGE_QUOTA_EXCEEDED.
 */
export async function createResumable(ports: Ports, settings: Settings, upload: IssuedUploadRecord, length: number, maxBytes: number): Promise<UploadStateRecord> {
  if (length > maxBytes) throw tooLarge(maxBytes);
  const existing = await ports.uploadStates.get(upload.storage_path);
  if (existing) {
    if (existing.length !== length) throw new ApiError('CONFLICT', `This upload was created with Upload-Length ${existing.length}.`);
    return existing;
  }
  await openOwner(ports, upload);
  await reserveDeclared(ports, settings, upload.storage_path, length);
  const record = newUploadState(upload.storage_path, length, upload.expires_at, new Date(ports.clock.now()).toISOString(), resumableKey(upload));
  await ports.uploadStates.create(record);
  return (await ports.uploadStates.get(upload.storage_path)) ?? record;
}

export interface AppendRequest {
  offset: number;
  body: ByteStream;
  /** The tus Upload-Checksum's sha256 digest (base64), when sent. */
  chunkChecksum: string | null;
  /** The PATCH's Content-Length, when it declared one. */
  declaredLength?: number | null;
  holder: string;
}

/**
 * One append (a tus PATCH): at exactly the stored offset, under the upload's lease, hashed as it
 * arrives; the offset and hash state advance together once the store has the bytes durably. The
 * last byte completes the upload: its digest is kept and the issued upload becomes `uploaded`.
 */
export async function appendToUpload(ports: Ports, settings: Settings, upload: IssuedUploadRecord, request: AppendRequest): Promise<UploadStateRecord> {
  // The lease (uploadLeaseSeconds, 30 s by default) is renewed while the append runs: when its
  // process dies, another instance (or the restarted one) continues after at most that long (409 until then).
  const appendLeaseMs = settings.uploadLeaseMs;
  const store = resumableStore(ports);
  let state = await ports.uploadStates.get(upload.storage_path);
  if (!state || state.length === null) throw new ApiError('NOT_FOUND', 'This upload has not been created: POST to it with Upload-Length first.');
  const length = state.length;
  const mismatch = () => new ApiError('UPLOAD_OFFSET_MISMATCH', `The upload is at offset ${state!.offset}; send from there.`);
  if (request.offset !== state.offset) throw mismatch();
  await openOwner(ports, upload);
  const now = ports.clock.now();
  if (!(await ports.uploadStates.lease(upload.storage_path, request.holder, now, now + appendLeaseMs))) {
    throw new ApiError('UPLOAD_OFFSET_MISMATCH', 'Another request is appending to this upload; ask HEAD for the offset once it is done.');
  }
  const renew = setInterval(() => {
    const at = ports.clock.now();
    void ports.uploadStates.lease(upload.storage_path, request.holder, at, at + appendLeaseMs).catch(() => {});
  }, appendLeaseMs / 3);
  let claimed = false;
  let reached = request.offset;
  try {
    // Read again under the lease: another instance may have appended since.
    state = (await ports.uploadStates.get(upload.storage_path))!;
    if (request.offset !== state.offset) throw mismatch();
    // The upload is the tus client's from its first byte on; a single PUT to signed_url holds it while it runs.
    const used = () => new ApiError('FORBIDDEN', 'This upload has been (or is being) sent through signed_url: a URL takes one upload. Ask upload-url for a new one.');
    if (upload.state === 'uploaded' || (upload.state === 'receiving' && state.offset === 0)) throw used();
    if (upload.state === 'issued') {
      if (!(await ports.storage.setUploadState(upload.storage_path, ['issued'], 'receiving'))) throw used();
      claimed = true;
      // Its whole length is reserved before the first byte (again, if a failed single PUT gave it back).
      await reserveDeclared(ports, settings, upload.storage_path, length);
    }
    const key = keptAt(upload.storage_path, state);
    const recovered = await finishLostCompletion(ports, upload, state, request);
    if (recovered) {
      reached = length;
      return recovered;
    }
    const hashing = await appendHashing(ports, store, state);
    const chunkChecksum = request.chunkChecksum === null ? {} : { chunkChecksum: { expected: request.chunkChecksum, hasher: await oneShotSha256(ports.hashing) } };
    const body = hashedBody(request.body, hashing.hasher ?? { update() {} }, { maxBytes: length - state.offset, ...chunkChecksum });
    let progress;
    try {
      progress = await store.append(key, progressOf(state), body);
    } catch (error) {
      if (!(error instanceof AppendRefusedError)) throw error;
      if (error.reason === 'checksum') throw new ApiError('UPLOAD_CHECKSUM_MISMATCH');
      if (error.reason === 'too-large') throw tooLarge(length);
      throw new ApiError('UPLOAD_OFFSET_MISMATCH', 'The chunk was cut off before its checksum could be checked; nothing of it was kept.');
    }
    const complete = progress.offset === length;
    const change = {
      offset: progress.offset,
      hash_state: complete ? null : hashing.save(),
      sha256: complete ? await hashing.digest(key, progress) : null,
      parts: progress.parts,
      store_upload_id: progress.storeUploadId,
      store_key: state.store_key,
      updated_at: new Date(ports.clock.now()).toISOString(),
    };
    if (complete) await store.complete(key, progress, 'application/octet-stream');
    if (!(await ports.uploadStates.advance(upload.storage_path, state.offset, change))) throw mismatch();
    hashing.kept(progress.offset, complete);
    if (complete && !(await ports.storage.setUploadState(upload.storage_path, ['receiving', 'issued'], 'uploaded', progress.offset))) {
      await discardUploads(ports, [upload.storage_path]).catch(() => {});
      throw new ApiError('NOT_FOUND', 'This upload URL belongs to a listing that no longer exists.');
    }
    reached = progress.offset;
    // A body cut off (the client went away) keeps what arrived: nobody reads this answer, the next HEAD does.
    return { ...state, ...change };
  } finally {
    clearInterval(renew);
    // A first append that kept nothing gives the upload back: signed_url may still take it.
    if (claimed && reached === 0) await ports.storage.setUploadState(upload.storage_path, ['receiving'], 'issued').catch(() => {});
    await ports.uploadStates.release(upload.storage_path, request.holder).catch(() => {});
  }
}

/**
 * A completion whose record was lost: the process died (or the upload state failed) between the
 * store's completion and the record's advance, so HEAD still reports the offset before the last
 * append while the store holds the whole upload at the state's store_key (a file's storage path,
 * which nothing else writes). The client then sends its last chunk again. Appending it would fail
 * (S3: the multipart upload is gone) or, on fs, write into a partial file that is gone; instead the
 * record is finished from what the store holds, its SHA-256 taken once more from the first stored
 * byte (the saved state covers only the bytes recorded), and the chunk sent is read and dropped.
 * Checked only for a PATCH that would reach the end, so it costs one HEAD per upload.
 */
async function finishLostCompletion(ports: Ports, upload: IssuedUploadRecord, state: UploadStateRecord, request: AppendRequest): Promise<UploadStateRecord | null> {
  const length = state.length!;
  const reachesEnd = request.declaredLength === undefined || request.declaredLength === null || state.offset + request.declaredLength >= length;
  if (state.store_key === null || !reachesEnd) return null;
  const stored = await ports.blobs.head(state.store_key);
  if (!stored || stored.size !== length) return null;
  for await (const chunk of request.body) void chunk;
  const blob = await ports.blobs.get(state.store_key);
  if (!blob) return null;
  const hasher = await oneShotSha256(ports.hashing);
  for await (const chunk of blob.body) hasher.update(chunk);
  const now = new Date(ports.clock.now()).toISOString();
  const change = { offset: length, hash_state: null, sha256: hasher.hex(), parts: state.parts, store_upload_id: state.store_upload_id, store_key: state.store_key, updated_at: now };
  if (!(await ports.uploadStates.advance(upload.storage_path, state.offset, change))) {
    throw new ApiError('UPLOAD_OFFSET_MISMATCH', 'The upload moved meanwhile; ask HEAD for the offset.');
  }
  await ports.storage.setUploadState(upload.storage_path, ['receiving', 'issued'], 'uploaded', length);
  return { ...state, ...change };
}

/** Termination (tus DELETE): the bytes so far and the upload's records go; its URLs then answer 404. */
export async function terminateUpload(ports: Ports, upload: IssuedUploadRecord): Promise<void> {
  if (upload.state === 'confirmed') throw new ApiError('FORBIDDEN', 'This upload was confirmed: delete the listing or confirm another file instead.');
  await discardUploads(ports, [upload.storage_path]);
}
