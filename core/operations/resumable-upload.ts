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
import { AppendRefusedError, resumableOf, type ResumableBlobs, type StoredProgress } from '../ports/resumable-blobs.js';
import type { UploadStateRecord } from '../ports/upload-state.js';
import type { Settings } from './context.js';
import { discardUploads, keptAt, openOwner, reserveDeclared, resumableKey, tooLarge, type UploadPorts } from './upload-lifecycle.js';
import { hashedBody } from '../uploads/hashed-body.js';
import { oneShotSha256 } from '../uploads/sha256.js';
import { appendHashing } from '../uploads/append-hashing.js';
import { newUploadState, progressOf } from '../uploads/upload-states.js';
import { holdUpload, uploadLocked, type UploadHold } from '../uploads/append-hold.js';


export function resumableStore(ports: UploadPorts): ResumableBlobs {
  const store = resumableOf(ports.blobs);
  if (!store) throw new ApiError('NOT_FOUND', 'This blob store takes uploads through signed_url only.');
  return store;
}


/**
 * Creates the upload's state with its length, once: the same length again answers the same (a
 * client retrying its creation); another is 409. Over the URL's bound is 413; over the account's
 * remaining quota is 413 STORAGE_QUOTA_EXCEEDED.
 */
export async function createResumable(ports: UploadPorts, settings: Settings, upload: IssuedUploadRecord, length: number, maxBytes: number): Promise<UploadStateRecord> {
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
  /** The instance's name: each request's hold is this and an id of its own. */
  holder: string;
}

const offsetMismatch = (offset: number) => new ApiError('UPLOAD_OFFSET_MISMATCH', `The upload is at offset ${offset}; send from there.`);
const gone = () => new ApiError('NOT_FOUND', 'This upload was terminated, or its listing deleted, while the PATCH ran; nothing of it was kept.');

/** The upload's state; 404 before its creation. */
async function createdState(ports: UploadPorts, upload: IssuedUploadRecord): Promise<UploadStateRecord & { length: number }> {
  const state = await ports.uploadStates.get(upload.storage_path);
  if (!state || state.length === null) throw new ApiError('NOT_FOUND', 'This upload has not been created: POST to it with Upload-Length first.');
  return state as UploadStateRecord & { length: number };
}

/**
 * One append (a tus PATCH): at exactly the stored offset, by the one request that holds the upload
 * across the deployment (append-hold.ts; any other is refused at once, 423, before a byte is
 * written), hashed as it arrives; the offset and hash state advance together once the store has
 * the bytes durably, and only while this request still holds the upload. The last byte completes
 * the upload: its digest is kept and the issued upload becomes `uploaded`.
 */
export async function appendToUpload(ports: UploadPorts, settings: Settings, upload: IssuedUploadRecord, request: AppendRequest): Promise<UploadStateRecord> {
  const store = resumableStore(ports);
  const seen = await createdState(ports, upload);
  if (request.offset !== seen.offset) throw offsetMismatch(seen.offset);
  await openOwner(ports, upload);
  const hold = await holdUpload(ports.uploadStates, ports.clock, upload.storage_path, `${request.holder}/${ports.ids.uuid()}`, settings.uploadLeaseMs);
  if (!hold) throw uploadLocked(settings.uploadLeaseMs);
  let claimed = false;
  let reached = request.offset;
  try {
    // Read again under the hold: another request may have appended since.
    const state = await createdState(ports, upload);
    if (request.offset !== state.offset) throw offsetMismatch(state.offset);
    claimed = await claimForAppends(ports, settings, upload, state);
    const appended = await appendHeld(ports, settings, store, upload, state, request, hold);
    reached = appended.offset;
    return appended;
  } finally {
    await hold.release();
    // A first append that kept nothing gives the upload back: signed_url may still take it. Not
    // given back (the storage failed), it stays the tus client's, which loses nothing.
    if (claimed && reached === 0) await ports.storage.setUploadState(upload.storage_path, ['appending'], 'issued').catch(() => undefined);
  }
}

/**
 * The upload is the tus client's from its first append on (`appending`), and stays so after a
 * crash in that append, whose next try goes on from the recorded offset; a single PUT to
 * signed_url holds it while it runs (`receiving`). True when this append claimed it, its whole
 * length then reserved before the first byte (again, if a failed single PUT gave it back).
 */
async function claimForAppends(ports: UploadPorts, settings: Settings, upload: IssuedUploadRecord, state: UploadStateRecord & { length: number }): Promise<boolean> {
  const used = () => new ApiError('FORBIDDEN', 'This upload has been (or is being) sent through signed_url: a URL takes one upload. Ask upload-url for a new one.');
  // (Versions before `appending` marked appends `receiving` too: such an upload has an offset.)
  if (upload.state === 'uploaded' || (upload.state === 'receiving' && state.offset === 0)) throw used();
  if (upload.state !== 'issued') return false;
  if (!(await ports.storage.setUploadState(upload.storage_path, ['issued'], 'appending'))) throw used();
  try {
    await reserveDeclared(ports, settings, upload.storage_path, state.length);
  } catch (error) {
    // The refusal is what the client hears; an upload not given back stays the tus client's.
    await ports.storage.setUploadState(upload.storage_path, ['appending'], 'issued').catch(() => undefined);
    throw error;
  }
  return true;
}

/** The body as the store reads it, stopped once the hold is lost (the store then keeps what it took, and the offset does not move). */
async function* whileHeld(source: ByteStream, hold: UploadHold): ByteStream {
  for await (const chunk of source) {
    hold.check();
    yield chunk;
  }
}

/** The append itself, under the hold: the bytes to the store, then the record. */
async function appendHeld(ports: UploadPorts, settings: Settings, store: ResumableBlobs, upload: IssuedUploadRecord, state: UploadStateRecord & { length: number }, request: AppendRequest, hold: UploadHold): Promise<UploadStateRecord> {
  const { length } = state;
  const key = keptAt(upload.storage_path, state);
  const recovered = await finishLostCompletion(ports, upload, state, request, hold.holder);
  if (recovered) return recovered;
  const hashing = await appendHashing(ports, store, state);
  const chunkChecksum = request.chunkChecksum === null ? {} : { chunkChecksum: { expected: request.chunkChecksum, hasher: await oneShotSha256(ports.hashing) } };
  const body = hashedBody(whileHeld(request.body, hold), hashing.hasher ?? { update() {} }, { maxBytes: length - state.offset, ...chunkChecksum });
  let progress: Awaited<ReturnType<ResumableBlobs['append']>> | undefined;
  try {
    progress = await store.append(key, progressOf(state), body);
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
    if (!(await ports.uploadStates.advance(upload.storage_path, state.offset, change, hold.holder))) {
      throw hold.lost() ? uploadLocked(settings.uploadLeaseMs) : offsetMismatch(state.offset);
    }
    hashing.kept(progress.offset, complete);
    if (complete && !(await ports.storage.setUploadState(upload.storage_path, ['appending', 'receiving', 'issued'], 'uploaded', progress.offset))) throw gone();
    // A listing's deletion forgets the upload's record before it removes its bytes, and does not
    // wait for an append: either it removes what this append wrote, or this read sees the record gone.
    if (!(await ports.storage.getUpload(upload.storage_path))) throw gone();
    // A body cut off (the client went away) keeps what arrived: nobody reads this answer, the next HEAD does.
    return { ...state, ...change };
  } catch (error) {
    throw await refusal(ports, store, upload, key, progress ?? progressOf(state), error);
  }
}

/**
 * What a failed append answers, after removing what it wrote when its upload is gone (terminated,
 * or its listing deleted, while it ran: the partial file may have vanished under it, a 500 until
 * now): 404 then, and nothing is left in the store.
 */
async function refusal(ports: UploadPorts, store: ResumableBlobs, upload: IssuedUploadRecord, key: string, progress: StoredProgress, error: unknown): Promise<unknown> {
  // A storage that cannot say counts as the upload still there: its bytes are then kept, never removed on a guess.
  if (!(await ports.storage.getUpload(upload.storage_path).catch(() => upload))) {
    await Promise.allSettled([store.abort(key, progress), discardUploads(ports, [upload.storage_path])]);
    return gone();
  }
  if (!(error instanceof AppendRefusedError)) return error;
  if (error.reason === 'checksum') return new ApiError('UPLOAD_CHECKSUM_MISMATCH');
  if (error.reason === 'too-large') return tooLarge(progress.length ?? 0);
  return new ApiError('UPLOAD_OFFSET_MISMATCH', 'The chunk was cut off before its checksum could be checked; nothing of it was kept.');
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
async function finishLostCompletion(ports: UploadPorts, upload: IssuedUploadRecord, state: UploadStateRecord & { length: number }, request: AppendRequest, holder: string): Promise<UploadStateRecord | null> {
  const { length } = state;
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
  if (!(await ports.uploadStates.advance(upload.storage_path, state.offset, change, holder))) {
    throw new ApiError('UPLOAD_OFFSET_MISMATCH', 'The upload moved meanwhile; ask HEAD for the offset.');
  }
  await ports.storage.setUploadState(upload.storage_path, ['appending', 'receiving', 'issued'], 'uploaded', length);
  return { ...state, ...change };
}

/**
 * Termination (tus DELETE): the bytes so far and the upload's records go; its URLs then answer 404.
 * It takes the upload's hold first, so it never pulls the bytes from under an append: while one
 * runs it is refused, 423 UPLOAD_LOCKED, and the client sends it again once that append is done.
 */
export async function terminateUpload(ports: UploadPorts, settings: Settings, upload: IssuedUploadRecord, holder: string): Promise<void> {
  if (upload.state === 'confirmed') throw new ApiError('FORBIDDEN', 'This upload was confirmed: delete the listing or confirm another file instead.');
  const state = await ports.uploadStates.get(upload.storage_path);
  const hold = state ? await holdUpload(ports.uploadStates, ports.clock, upload.storage_path, `${holder}/${ports.ids.uuid()}`, settings.uploadLeaseMs) : null;
  if (state && !hold) throw uploadLocked(settings.uploadLeaseMs);
  try {
    await discardUploads(ports, [upload.storage_path]);
  } finally {
    await hold?.release();
  }
}
