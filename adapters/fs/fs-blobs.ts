import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, open, readFile, readdir, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import { BlobTooLargeError, type BlobInfo, type BlobPort, type ByteStream } from '../../core/ports/blobs.js';
import type { ResumableBlobs } from '../../core/ports/resumable-blobs.js';
import { batchedWrites } from './batched-writes.js';
import { fsResumable } from './fs-resumable.js';

const OptionsSchema = v.object({
  root: v.pipe(v.string('root must be a directory path'), v.minLength(1, 'root must not be empty')),
});

export type FsBlobsOptions = v.InferInput<typeof OptionsSchema>;

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
const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'ENAMETOOLONG'].includes((error as NodeJS.ErrnoException).code ?? '');

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
async function* readStream(handle: FileHandle): ByteStream {
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

/**
 * The blob port on a directory: `objects/` holds each object as a plain file at its storage path,
 * `meta/` its content type, `tmp/` uploads in progress. A put is written to `tmp/`, fsynced and
 * renamed into place, so a reader sees the old object or the whole new one, and an upload that
 * fails or dies leaves nothing under `objects/`.
 */
export function fsBlobs(options: FsBlobsOptions): BlobPort & { readonly root: string; resumable: ResumableBlobs } {
  const root = resolve(parseOptions(OptionsSchema, options, 'marketkit fsBlobs').root);
  const objectsDir = join(root, 'objects');
  const metaDir = join(root, 'meta');
  const tmpDir = join(root, 'tmp');

  /** Where a storage path lives; refuses any path that could resolve outside the root. */
  function locate(path: string): { object: string; meta: string } {
    const segments = path.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || /[\\\u0000]/.test(s))) {
      throw new Error(`marketkit fsBlobs: "${path}" is not a storage path (empty, "." or ".." segments, "\\" or NUL)`);
    }
    const object = resolve(objectsDir, ...segments);
    const meta = resolve(metaDir, ...segments);
    if (!object.startsWith(objectsDir + sep) || !meta.startsWith(metaDir + sep)) {
      throw new Error(`marketkit fsBlobs: "${path}" resolves outside the root`);
    }
    return { object, meta };
  }

  let prepared: Promise<void> | undefined;
  /**
   * Creates the directories and removes what uploads killed with their process left in tmp/: at
   * once for a process of this host that is gone, after an hour untouched for any other.
   */
  const prepare = () =>
    (prepared ??= (async () => {
      await mkdir(tmpDir, { recursive: true });
      const now = Date.now();
      for (const name of await readdir(tmpDir)) {
        const file = join(tmpDir, name);
        if (leftByDeadProcess(name)) {
          await rm(file, { force: true });
          continue;
        }
        const info = await stat(file).catch(() => null);
        if (info && now - info.mtimeMs > staleTempMs) await rm(file, { force: true });
      }
    })().catch((error) => {
      prepared = undefined;
      throw error;
    }));

  /** Renames into place, creating the directories (and making them durable) as needed. */
  async function moveInto(from: string, to: string): Promise<void> {
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
  async function pruneEmpty(dir: string, top: string): Promise<void> {
    for (let d = dir; d.startsWith(top + sep); d = dirname(d)) {
      try {
        await rmdir(d);
      } catch {
        return;
      }
    }
  }

  async function contentTypeOf(metaFile: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { contentType?: unknown };
      return typeof meta.contentType === 'string' ? meta.contentType : defaultContentType;
    } catch {
      return defaultContentType;
    }
  }

  async function writeTemp(body: ByteStream | Uint8Array, maxBytes: number): Promise<{ file: string; size: number }> {
    const file = join(tmpDir, tempPrefix === null ? randomUUID() : `${tempPrefix}${process.pid}~${randomUUID()}`);
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
      await handle.close().catch(() => {});
      await rm(file, { force: true });
      throw error;
    }
  }

  /** `length` bytes from `offset` with positioned reads: the rest of the file is never read. */
  async function readRange(path: string, offset: number, length: number): Promise<Uint8Array | null> {
    const target = locate(path);
    const handle = await open(target.object, 'r').catch((error) => (isMissing(error) ? null : Promise.reject(error)));
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

  return {
    root,
    // A finished resumable upload becomes its object as a put's temporary file does: type first, then bytes.
    resumable: fsResumable(root, async (file, path, contentType) => {
      const target = locate(path);
      await prepare();
      const meta = await writeTemp(new TextEncoder().encode(JSON.stringify({ contentType })), Infinity);
      await moveInto(meta.file, target.meta);
      await moveInto(file, target.object);
    }),
    async put(path, body, { contentType, maxBytes }): Promise<BlobInfo> {
      const target = locate(path);
      await prepare();
      const data = await writeTemp(body, maxBytes);
      let meta: { file: string } | undefined;
      try {
        meta = await writeTemp(new TextEncoder().encode(JSON.stringify({ contentType })), Infinity);
        // The bytes move last: once they are in place, so is their content type.
        await moveInto(meta.file, target.meta);
        await moveInto(data.file, target.object);
      } catch (error) {
        await Promise.all([rm(data.file, { force: true }), meta && rm(meta.file, { force: true })]);
        throw error;
      }
      return { size: data.size, contentType };
    },
    async head(path) {
      const target = locate(path);
      const info = await stat(target.object).catch((error) => (isMissing(error) ? null : Promise.reject(error)));
      if (!info?.isFile()) return null;
      return { size: info.size, contentType: await contentTypeOf(target.meta) };
    },
    readStart: (path, length) => readRange(path, 0, length),
    readRange,
    async get(path) {
      const target = locate(path);
      const handle = await open(target.object, 'r').catch((error) => (isMissing(error) ? null : Promise.reject(error)));
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
    },
    async move(from, to) {
      const source = locate(from);
      const target = locate(to);
      await prepare();
      const info = await stat(source.object).catch((error) => (isMissing(error) ? null : Promise.reject(error)));
      if (!info?.isFile()) return null;
      // The content type first, then the bytes (as put does): once the bytes are in place, so is their type.
      await moveInto(source.meta, target.meta).catch((error) => (isMissing(error) ? undefined : Promise.reject(error)));
      try {
        await moveInto(source.object, target.object);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      await Promise.all([pruneEmpty(dirname(source.object), objectsDir), pruneEmpty(dirname(source.meta), metaDir)]);
      return { size: info.size, contentType: await contentTypeOf(target.meta) };
    },
    async delete(path) {
      const target = locate(path);
      await rm(target.object, { force: true });
      await rm(target.meta, { force: true });
      await Promise.all([pruneEmpty(dirname(target.object), objectsDir), pruneEmpty(dirname(target.meta), metaDir)]);
    },
    async ping() {
      await prepare();
      const probe = join(tmpDir, `ping-${randomUUID()}`);
      const handle = await open(probe, 'wx');
      await handle.close();
      await rm(probe, { force: true });
    },
  };
}
