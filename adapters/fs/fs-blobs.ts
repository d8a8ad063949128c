import { randomUUID } from 'node:crypto';
import { open, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import type { BlobInfo, BlobPort, ByteStream } from '../../core/ports/blobs.js';
import type { ResumableBlobs } from '../../core/ports/resumable-blobs.js';
import { blobDirectory, contentTypeOf, isMissing, locate, moveInto, prepare, pruneEmpty, readStream, writeMetaTemp, writeTemp, type BlobDirectory } from './blob-directory.js';
import { fsResumable } from './fs-resumable.js';

const OptionsSchema = v.object({
  root: v.pipe(v.string('root must be a directory path'), v.minLength(1, 'root must not be empty')),
});

export type FsBlobsOptions = v.InferInput<typeof OptionsSchema>;

/** Null when the file is missing, the error otherwise. */
const nullIfMissing = (error: unknown) => (isMissing(error) ? null : Promise.reject(error));

/**
 * The blob port on a directory: `objects/` holds each object as a plain file at its storage path,
 * `meta/` its content type, `tmp/` uploads in progress. A put is written to `tmp/`, fsynced and
 * renamed into place, so a reader sees the old object or the whole new one, and an upload that
 * fails or dies leaves nothing under `objects/`. Each method is one of the functions below, over
 * the directory (blob-directory.ts).
 */
export function fsBlobs(options: FsBlobsOptions): BlobPort & { readonly root: string; resumable: ResumableBlobs } {
  const dir = blobDirectory(resolve(parseOptions(OptionsSchema, options, 'marketkit fsBlobs').root));
  return {
    root: dir.root,
    resumable: fsResumable(dir.root, (file, path, contentType) => placeResumable(dir, file, path, contentType)),
    put: (path, body, { contentType, maxBytes }) => putObject(dir, path, body, contentType, maxBytes),
    head: (path) => headObject(dir, path),
    readStart: (path, length) => readObjectRange(dir, path, 0, length),
    readRange: (path, offset, length) => readObjectRange(dir, path, offset, length),
    get: (path) => getObject(dir, path),
    move: (from, to) => moveObject(dir, from, to),
    delete: (path) => deleteObject(dir, path),
    ping: () => pingDirectory(dir),
  };
}

/** A finished resumable upload becomes its object as a put's temporary file does: type first, then bytes. */
async function placeResumable(dir: BlobDirectory, file: string, path: string, contentType: string): Promise<void> {
  const target = locate(dir, path);
  await prepare(dir);
  const meta = await writeMetaTemp(dir, contentType);
  await moveInto(meta.file, target.meta);
  await moveInto(file, target.object);
}

async function putObject(dir: BlobDirectory, path: string, body: ByteStream | Uint8Array, contentType: string, maxBytes: number): Promise<BlobInfo> {
  const target = locate(dir, path);
  await prepare(dir);
  const data = await writeTemp(dir, body, maxBytes);
  let meta: { file: string } | undefined;
  try {
    meta = await writeMetaTemp(dir, contentType);
    // The bytes move last: once they are in place, so is their content type.
    await moveInto(meta.file, target.meta);
    await moveInto(data.file, target.object);
  } catch (error) {
    await Promise.all([rm(data.file, { force: true }), meta && rm(meta.file, { force: true })]);
    throw error;
  }
  return { size: data.size, contentType };
}

async function headObject(dir: BlobDirectory, path: string): Promise<BlobInfo | null> {
  const target = locate(dir, path);
  const info = await stat(target.object).catch(nullIfMissing);
  if (!info?.isFile()) return null;
  return { size: info.size, contentType: await contentTypeOf(target.meta) };
}

/** `length` bytes from `offset` with positioned reads: the rest of the file is never read. */
async function readObjectRange(dir: BlobDirectory, path: string, offset: number, length: number): Promise<Uint8Array | null> {
  const target = locate(dir, path);
  const handle = await open(target.object, 'r').catch(nullIfMissing);
  if (!handle) return null;
  try {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } catch (error) {
    // A directory at the path opens but does not read: no object there.
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return null;
    throw error;
  } finally {
    await handle.close();
  }
}

async function getObject(dir: BlobDirectory, path: string): Promise<(BlobInfo & { body: ByteStream }) | null> {
  const target = locate(dir, path);
  const handle = await open(target.object, 'r').catch(nullIfMissing);
  if (!handle) return null;
  try {
    // Size and bytes come from the one open file, even if a put replaces it meanwhile.
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      return null;
    }
    return { size: info.size, contentType: await contentTypeOf(target.meta), body: readStream(handle) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function moveObject(dir: BlobDirectory, from: string, to: string): Promise<BlobInfo | null> {
  const source = locate(dir, from);
  const target = locate(dir, to);
  await prepare(dir);
  const info = await stat(source.object).catch(nullIfMissing);
  if (!info?.isFile()) return null;
  // The content type first, then the bytes (as put does): once the bytes are in place, so is their type.
  await moveInto(source.meta, target.meta).catch((error) => (isMissing(error) ? undefined : Promise.reject(error)));
  try {
    await moveInto(source.object, target.object);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  await Promise.all([pruneEmpty(dirname(source.object), dir.objectsDir), pruneEmpty(dirname(source.meta), dir.metaDir)]);
  return { size: info.size, contentType: await contentTypeOf(target.meta) };
}

async function deleteObject(dir: BlobDirectory, path: string): Promise<void> {
  const target = locate(dir, path);
  await rm(target.object, { force: true });
  await rm(target.meta, { force: true });
  await Promise.all([pruneEmpty(dirname(target.object), dir.objectsDir), pruneEmpty(dirname(target.meta), dir.metaDir)]);
}

async function pingDirectory(dir: BlobDirectory): Promise<void> {
  await prepare(dir);
  const probe = join(dir.tmpDir, `ping-${randomUUID()}`);
  const handle = await open(probe, 'wx');
  await handle.close();
  await rm(probe, { force: true });
}
