import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, open, readFile, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { BlobTooLargeError, type ByteStream } from '../../core/ports/blobs.js';
import { batchedWrites } from './batched-writes.js';

/**
 * The directory of an fs blob store: `objects/` holds each object as a plain file at its storage
 * path, `meta/` its content type, `tmp/` uploads in progress. `prepared` is the one start-up
 * clean-up of `tmp/` (see `prepare`).
 */
export interface BlobDirectory {
  readonly root: string;
  readonly objectsDir: string;
  readonly metaDir: string;
  readonly tmpDir: string;
  prepared?: Promise<void> | undefined;
}

export function blobDirectory(root: string): BlobDirectory {
  return { root, objectsDir: join(root, 'objects'), metaDir: join(root, 'meta'), tmpDir: join(root, 'tmp') };
}

/** A temporary file untouched this long belongs to an upload that died with its process. */
const staleTempMs = 60 * 60 * 1000;
/**
 * Temporary files are named after the host and process writing them, so that a start-up can tell
 * the partial files of a process that died (a SIGKILL mid-upload) from those of one still writing.
 */
const tempPrefix = (() => {
  try {
    return `${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}~`;
  } catch {
    // Deno without --allow-sys: no host name, so no file is judged by its process; age decides.
    return null;
  }
})();

/** Whether the temporary file `name` was left by a process of this host that no longer runs. */
function leftByDeadProcess(name: string): boolean {
  if (tempPrefix === null || !name.startsWith(tempPrefix)) return false;
  const pid = Number(name.slice(tempPrefix.length).split('~')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
const chunkBytes = 64 * 1024;
const defaultContentType = 'application/octet-stream';

/** No object there: a missing file or directory, or a name too long for the file system to hold one (ENAMETOOLONG). */
export const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG'].includes((error as NodeJS.ErrnoException).code ?? '');

/** Makes a rename or a new entry in `dir` durable. Some platforms cannot open a directory: skipped there. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Windows refuses to fsync a directory; NTFS journals renames itself.
  } finally {
    await handle?.close();
  }
}

/** The file's bytes from its open handle, which the stream closes when it ends or is abandoned midway. */
export async function* readStream(handle: FileHandle): ByteStream {
  try {
    for (;;) {
      const buffer = new Uint8Array(chunkBytes);
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** Where a storage path lives; refuses any path that could resolve outside the root. */
export function locate(dir: BlobDirectory, path: string): { object: string; meta: string } {
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || /[\\\u0000]/.test(s))) {
    throw new Error(`marketkit fsBlobs: "${path}" is not a storage path (empty, "." or ".." segments, "\\" or NUL)`);
  }
  const object = resolve(dir.objectsDir, ...segments);
  const meta = resolve(dir.metaDir, ...segments);
  if (!object.startsWith(dir.objectsDir + sep) || !meta.startsWith(dir.metaDir + sep)) {
    throw new Error(`marketkit fsBlobs: "${path}" resolves outside the root`);
  }
  return { object, meta };
}

/**
 * Creates the directories and removes what uploads killed with their process left in tmp/: at
 * once for a process of this host that is gone, after an hour untouched for any other. Once per
 * directory; a failure is tried again by the next call.
 */
export function prepare(dir: BlobDirectory): Promise<void> {
  return (dir.prepared ??= removeDeadTemps(dir.tmpDir).catch((error) => {
    dir.prepared = undefined;
    throw error;
  }));
}

async function removeDeadTemps(tmpDir: string): Promise<void> {
  await mkdir(tmpDir, { recursive: true });
  const now = Date.now();
  for (const name of await readdir(tmpDir)) {
    const file = join(tmpDir, name);
    if (leftByDeadProcess(name)) {
      await rm(file, { force: true });
      continue;
    }
    // Gone meanwhile (its put finished): nothing to remove.
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > staleTempMs) await rm(file, { force: true });
  }
}

/** Renames into place, creating the directories (and making them durable) as needed. */
export async function moveInto(from: string, to: string): Promise<void> {
  const dir = dirname(to);
  // A concurrent delete may prune the directory between mkdir and rename: try again then.
  for (let attempt = 1; ; attempt++) {
    const created = await mkdir(dir, { recursive: true });
    try {
      await rename(from, to);
    } catch (error) {
      if (attempt < 3 && isMissing(error)) continue;
      throw error;
    }
    await syncDirectory(dir);
    // Each directory mkdir made is itself a new entry in its parent.
    for (let d = dir; created && d.length >= created.length; d = dirname(d)) await syncDirectory(dirname(d));
    return;
  }
}

/** Removes the directories a delete left empty, up to (not including) `top`. */
export async function pruneEmpty(dir: string, top: string): Promise<void> {
  for (let d = dir; d.startsWith(top + sep); d = dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      // Not empty (another object lives below) or gone: the pruning stops there.
      return;
    }
  }
}

export async function contentTypeOf(metaFile: string): Promise<string> {
  try {
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { contentType?: unknown };
    return typeof meta.contentType === 'string' ? meta.contentType : defaultContentType;
  } catch {
    return defaultContentType;
  }
}

/** Writes `body` to a new file of tmp/, fsynced; refuses (and removes it) past `maxBytes`. */
export async function writeTemp(dir: BlobDirectory, body: ByteStream | Uint8Array, maxBytes: number): Promise<{ file: string; size: number }> {
  const file = join(dir.tmpDir, tempPrefix === null ? randomUUID() : `${tempPrefix}${process.pid}~${randomUUID()}`);
  const handle = await open(file, 'wx');
  let size = 0;
  const writes = batchedWrites(handle, null);
  try {
    for await (const chunk of body instanceof Uint8Array ? [body] : body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      await writes.add(chunk);
    }
    await writes.flush();
    await handle.sync();
    await handle.close();
    return { file, size };
  } catch (error) {
    await writes.settle();
    // The write's own error is the answer; the file is removed whatever the close says.
    await handle.close().catch(() => {});
    await rm(file, { force: true });
    throw error;
  }
}

/** The content type's meta file, written to tmp/ to be moved into place. */
export const writeMetaTemp = (dir: BlobDirectory, contentType: string) =>
  writeTemp(dir, new TextEncoder().encode(JSON.stringify({ contentType })), Infinity);
