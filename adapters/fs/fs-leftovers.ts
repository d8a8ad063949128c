import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * What uploads in progress left on the fs blob store that nothing touched for `untouchedForMs`
 * (core/ports/resumable-blobs.ts, removeLeftovers): partial files of resumable uploads (named by a
 * hash of their key, so no record can claim them), temporary files of puts killed with their
 * process, and metadata files whose object is gone (a crash between the two renames or removals).
 * Judged by the files' own modification times, which every write moves. Resolves with how many it removed.
 */
export async function removeFsLeftovers(root: string, untouchedForMs: number, now = Date.now()): Promise<number> {
  const old = async (file: string) => {
    // Gone meanwhile (or unreadable): not a leftover this pass removes.
    const info = await stat(file).catch(() => null);
    return info !== null && info.isFile() && now - info.mtimeMs > untouchedForMs;
  };
  let removed = 0;
  for (const dir of [join(root, 'partial'), join(root, 'tmp')]) {
    // No such directory yet: nothing was left there.
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!(await old(join(dir, name)))) continue;
      await rm(join(dir, name), { force: true });
      removed++;
    }
  }
  const metaDir = join(root, 'meta');
  // No metadata directory yet: nothing was left there.
  const entries = await readdir(metaDir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const meta = join(entry.parentPath, entry.name);
    const object = join(root, 'objects', relative(metaDir, meta));
    // A stat that fails counts as no object: the metadata is then an orphan once it is old.
    if ((await stat(object).catch(() => null)) !== null || !(await old(meta))) continue;
    await rm(meta, { force: true });
    removed++;
    // The directories left empty go too (as a delete prunes them).
    for (let dir = entry.parentPath; dir.startsWith(metaDir + '/') || dir.startsWith(metaDir + '\\'); dir = join(dir, '..')) {
      // Not empty (another entry lives below) or gone: the pruning stops there.
      if (!(await rmdir(dir).then(() => true, () => false))) break;
    }
  }
  return removed;
}
