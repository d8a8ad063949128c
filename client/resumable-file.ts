/**
 * `uploadFile` for a large file (docs/uploads.md, "Clients that resume"): upload-url with
 * `file_size`, the chunks to its `upload_url` (resumable.ts), confirm-file with the SHA-256. The
 * upload URL is kept in the resume store under the listing and the file's fingerprint while the
 * upload runs, so that a call after a crash, a kill or a failed call goes on from the server's
 * offset instead of from zero; it is forgotten once the file is confirmed.
 */
import { MarketKitError } from './errors.js';
import type { Transport } from './http.js';
import { headOffset, resumeKey, sendResumable, type RandomAccessSource, type ResumeEntry, type ResumeStore } from './resumable.js';
import type { UploadProgress } from './upload.js';
import type * as T from './types.js';

export interface ResumableFileSteps {
  issue(body: T.UploadUrlBody): Promise<T.UploadUrl>;
  confirm(body: T.ConfirmFileBody): Promise<T.ConfirmFileResult>;
}

export interface ResumableFileOptions {
  chunkSize: number;
  attempts: number;
  store: ResumeStore;
  sha256?: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/** Statuses after which a remembered upload URL is no use: gone (404, 410) or no longer accepted (403). */
const gone = new Set([403, 404, 410]);

/** A remembered upload of this content, and the server's offset of it; null when there is none to go on with. */
async function remembered(transport: Transport, store: ResumeStore, key: string, size: number, signal?: AbortSignal): Promise<{ entry: ResumeEntry; offset: number } | null> {
  const entry = await store.get(key);
  if (!entry) return null;
  // Expiry is the server's to say (HEAD answers 410), by its clock, not this one's.
  if (entry.size !== size) {
    await store.delete(key);
    return null;
  }
  try {
    return { entry, offset: await headOffset(transport, entry.upload_url, size, signal ? { signal } : {}) };
  } catch (error) {
    if (!(error instanceof MarketKitError) || !gone.has(error.status)) throw error;
    await store.delete(key);
    return null;
  }
}

export async function uploadFileResumably(
  transport: Transport,
  assetId: string,
  filename: string,
  source: RandomAccessSource,
  steps: ResumableFileSteps,
  options: ResumableFileOptions,
): Promise<T.ConfirmFileResult> {
  const key = source.fingerprint ? resumeKey(assetId, source.fingerprint) : null;
  const found = key ? await remembered(transport, options.store, key, source.size, options.signal) : null;
  let entry = found?.entry;
  if (!entry) {
    const issued = await steps.issue({ filename, file_size: source.size });
    entry = { upload_url: issued.upload_url, storage_path: issued.storage_path, size: source.size, expires_at: issued.expires_at };
    if (key) await options.store.set(key, entry);
  }
  const computed = await sendResumable(transport, entry.upload_url, source, found?.offset ?? 0, {
    chunkSize: options.chunkSize,
    hash: options.sha256 === undefined,
    attempts: options.attempts,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // The seller's digest when given (the server checks it: 422 CHECKSUM_MISMATCH), else the one computed here.
  const sha256 = options.sha256 ?? computed ?? undefined;
  const confirmed = await steps.confirm({ storage_path: entry.storage_path, file_size: source.size, ...(sha256 ? { sha256 } : {}) });
  if (key) await options.store.delete(key);
  return confirmed;
}

/** The default resume store: this process's memory (a failed call, called again, goes on from the server's offset). */
export function memoryResumeStore(): ResumeStore {
  const entries = new Map<string, ResumeEntry>();
  return { get: (key) => entries.get(key), set: (key, entry) => void entries.set(key, entry), delete: (key) => void entries.delete(key) };
}
