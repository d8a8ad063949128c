/**
 * Confirm-file's checks of an uploaded file, shared by a listing's file (uploads.ts) and a
 * version's (version-files.ts): the size sent against the bytes, the SHA-256 against the digest the
 * server took as they arrived, nothing empty; then the bytes moved out of reach of any URL.
 */
import { ApiError, invalidInput, isApiError } from '../errors.js';
import type { AssetFileRecord, IssuedUploadRecord } from '../ports/storage.js';
import { nowIso, type OperationContext } from './context.js';
import { discardUploads, takeStagedUpload, type UploadPorts } from './upload-lifecycle.js';

const emptyFile = 'holds no bytes: upload the file again (a listing\'s file has at least one byte)';
const emptyFileError = () => new ApiError('EMPTY_FILE', `storage_path ${emptyFile}`, { details: [{ path: 'storage_path', message: emptyFile }] });

const checksumMismatch = () =>
  new ApiError('CHECKSUM_MISMATCH', 'sha256 is not the SHA-256 of the uploaded bytes; nothing was confirmed. Check the file, or upload it again.', {
    details: [{ path: 'sha256', message: 'does not match the SHA-256 of the uploaded bytes' }],
  });

const sizeMismatch = (size: number) => invalidInput('file_size', `must equal the size of the uploaded file (${size} bytes)`);

/** What confirm-file is sent about the file. */
export interface FileConfirmation {
  file_size: number;
  sha256?: string | undefined;
}

/**
 * An upload confirmed before, confirmed again: confirmed bytes never move again, so confirming the
 * current file once more answers the same; a file replaced since is refused.
 */
export function confirmedAgain(current: AssetFileRecord | null, path: string, input: FileConfirmation): AssetFileRecord {
  if (current?.storage_path !== path) throw invalidInput('storage_path', 'was replaced by a later file: upload it again with a new URL');
  if (current.file_size !== input.file_size) throw sizeMismatch(current.file_size);
  if (input.sha256 !== undefined && current.sha256 && input.sha256 !== current.sha256) throw checksumMismatch();
  return current;
}

/** Checks the uploaded bytes against what was sent and takes them (takeStagedUpload): the file record to store. */
export async function takeFileUpload(ctx: OperationContext, issued: IssuedUploadRecord, input: FileConfirmation): Promise<AssetFileRecord> {
  const path = issued.storage_path;
  // The digest the server took as the bytes arrived (null where the store took them itself: S3's own URL).
  const state = await ctx.ports.uploadStates.get(path), sha256 = state?.sha256 ?? null;
  // A resumable upload declared empty is complete without a PATCH (tus-js-client sends none), so never staged.
  if (state?.length === 0) throw input.file_size === 0 ? emptyFileError() : sizeMismatch(0);
  if (input.sha256 !== undefined && sha256 !== null && input.sha256 !== sha256) throw checksumMismatch();
  const moved = await takeStagedUpload(ctx.ports, ctx.settings, issued, {
    state, maxBytes: ctx.settings.maxFileBytes,
    accept: (staged) => {
      // The input is checked first (400 before 422, the contract's order): a wrong file_size says so.
      if (staged.size !== input.file_size) throw sizeMismatch(staged.size);
      // Nothing a buyer could download.
      if (staged.size === 0) throw emptyFileError();
    },
  });
  return { storage_path: path, file_size: moved.size, content_type: moved.contentType, confirmed_at: nowIso(ctx), sha256 };
}

/**
 * After a confirm's change failed: the upload's bytes go only when the refusal is final (the
 * listing or version is gone, or no longer takes a file); otherwise (the storage unreachable for a
 * moment, a race lost, a fault) they stay for the client's retry, which finds them as they were
 * (the 30-minute soak: a confirm answered 503 during a database restart, and its retry 400 "no
 * uploaded file yet", the bytes removed). Bytes never confirmed go with the upload sweep.
 */
export async function discardIfRefused(ports: UploadPorts, path: string, error: unknown): Promise<void> {
  if (!isApiError(error) || !finalRefusals.has(error.code)) return;
  // The refusal is the answer; what a failed discard leaves is never confirmed, and the upload sweep removes it once its URL has expired.
  await discardUploads(ports, [path]).catch(() => {});
}

const finalRefusals: ReadonlySet<string> = new Set(['NOT_FOUND', 'INVALID_STATUS', 'LISTING_IS_LIVE', 'ACCOUNT_RESTRICTED']);
