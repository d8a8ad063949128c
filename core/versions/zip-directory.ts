/**
 * A zip archive's table of contents, read from its central directory alone (docs/moderation.md,
 * "What changed"): the end-of-central-directory record at the end of the file (zip64's when the
 * archive needs it), then the directory itself, each with one range read. The entries' data is
 * never read, so an archive of 20 GB costs the size of its directory (about 80 bytes an entry).
 */

/** One entry as the central directory records it. */
export interface ZipEntry {
  name: string;
  /** Uncompressed size in bytes. */
  size: number;
  /** CRC-32 of the uncompressed bytes, as 8 lower-case hex digits. */
  crc32: string;
}

export type ZipDirectory = { kind: 'zip'; entries: ZipEntry[]; bytesRead: number } | { kind: 'not-zip'; reason: string; bytesRead: number };

/** Reads `length` bytes at `offset` of the file (fewer only at its end). */
export type RangeReader = (offset: number, length: number) => Promise<Uint8Array>;

const eocdSignature = 0x06054b50;
const zip64LocatorSignature = 0x07064b50;
const zip64EocdSignature = 0x06064b50;
const entrySignature = 0x02014b50;
const eocdBytes = 22;
const maxComment = 0xffff;
/** A directory larger than this is not read (a listing's pack of a million entries is not reviewed entry by entry). */
export const maxDirectoryBytes = 64 * 1024 * 1024;

const u16 = (b: DataView, at: number) => b.getUint16(at, true);
const u32 = (b: DataView, at: number) => b.getUint32(at, true);
const u64 = (b: DataView, at: number) => Number(b.getBigUint64(at, true));
const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The central directory of the `size`-byte file that `read` reads; `not-zip` (with why) for anything else. */
export async function readZipDirectory(size: number, read: RangeReader): Promise<ZipDirectory> {
  let bytesRead = 0;
  const readCounted = async (offset: number, length: number) => {
    const bytes = await read(offset, length);
    bytesRead += bytes.byteLength;
    return bytes;
  };
  const notZip = (reason: string): ZipDirectory => ({ kind: 'not-zip', reason, bytesRead });
  if (size < eocdBytes) return notZip('the file is too small to be a zip archive');
  const tailStart = Math.max(0, size - eocdBytes - maxComment - 20);
  const tail = await readCounted(tailStart, size - tailStart);
  const tailView = view(tail);
  let eocd = -1;
  for (let at = tail.byteLength - eocdBytes; at >= 0; at--) {
    if (u32(tailView, at) === eocdSignature && at + eocdBytes + u16(tailView, at + 20) === tail.byteLength) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return notZip('no end-of-central-directory record: not a zip archive');
  let count = u16(tailView, eocd + 10);
  let directorySize = u32(tailView, eocd + 12);
  let directoryOffset = u32(tailView, eocd + 16);
  const locator = eocd - 20;
  if (locator >= 0 && u32(tailView, locator) === zip64LocatorSignature) {
    const recordAt = u64(tailView, locator + 8);
    const record = view(await readCounted(recordAt, 56));
    if (record.byteLength < 56 || u32(record, 0) !== zip64EocdSignature) return notZip('a zip64 locator points at no zip64 record');
    count = u64(record, 32);
    directorySize = u64(record, 40);
    directoryOffset = u64(record, 48);
  }
  if (directoryOffset + directorySize > size) return notZip('the central directory lies past the end of the file');
  if (directorySize > maxDirectoryBytes) return notZip(`the central directory holds ${directorySize} bytes, more than the ${maxDirectoryBytes} read for a review`);
  const directory = await readCounted(directoryOffset, directorySize);
  const entries = parseEntries(directory, count);
  return typeof entries === 'string' ? notZip(entries) : { kind: 'zip', entries, bytesRead };
}

/** The entries of a central directory; a string saying what is wrong when it is damaged. */
function parseEntries(directory: Uint8Array, count: number): ZipEntry[] | string {
  const dir = view(directory);
  const decoder = new TextDecoder('utf-8');
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.byteLength || u32(dir, at) !== entrySignature) return `entry ${i + 1} of the central directory is damaged`;
    const nameLength = u16(dir, at + 28);
    const extraLength = u16(dir, at + 30);
    const commentLength = u16(dir, at + 32);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > directory.byteLength) return `entry ${i + 1} of the central directory runs past its end`;
    let size = u32(dir, at + 24);
    if (size === 0xffffffff) size = zip64Size(dir, at + 46 + nameLength, extraLength) ?? size;
    entries.push({ name: decoder.decode(directory.subarray(at + 46, at + 46 + nameLength)), size, crc32: u32(dir, at + 16).toString(16).padStart(8, '0') });
    at = end;
  }
  return entries;
}

/** The uncompressed size from an entry's zip64 extra field (id 1), which holds it first when it is there at all. */
function zip64Size(dir: DataView, extraStart: number, extraLength: number): number | null {
  for (let at = extraStart; at + 4 <= extraStart + extraLength; ) {
    const id = u16(dir, at);
    const length = u16(dir, at + 2);
    if (id === 0x0001 && length >= 8) return u64(dir, at + 4);
    at += 4 + length;
  }
  return null;
}

export interface ZipChange {
  name: string;
  before: { size: number; crc32: string } | null;
  after: { size: number; crc32: string } | null;
}

/** What a new archive adds, removes and changes (by size or CRC) against the live one, each list by name. */
export function diffZipEntries(live: readonly ZipEntry[], next: readonly ZipEntry[]): { added: ZipChange[]; removed: ZipChange[]; changed: ZipChange[] } {
  const before = new Map(live.map((entry) => [entry.name, entry]));
  const after = new Map(next.map((entry) => [entry.name, entry]));
  const shape = (entry: ZipEntry) => ({ size: entry.size, crc32: entry.crc32 });
  const byName = (a: ZipChange, b: ZipChange) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const added = next.filter((entry) => !before.has(entry.name)).map((entry) => ({ name: entry.name, before: null, after: shape(entry) }));
  const removed = live.filter((entry) => !after.has(entry.name)).map((entry) => ({ name: entry.name, before: shape(entry), after: null }));
  const changed = next
    .filter((entry) => {
      const old = before.get(entry.name);
      return old !== undefined && (old.size !== entry.size || old.crc32 !== entry.crc32);
    })
    .map((entry) => ({ name: entry.name, before: shape(before.get(entry.name)!), after: shape(entry) }));
  return { added: added.sort(byName), removed: removed.sort(byName), changed: changed.sort(byName) };
}
