/**
 * A file on disk as an upload source for the typed client (`marketkit/client`), which has no
 * file system of its own: `client.uploadFile(assetId, await fileSource('./pack.zip'))`. The file
 * is streamed, never read whole; its size (for Content-Length and confirm-file) and name come
 * from the file system.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SizedSource } from '../../client/upload.js';

export async function fileSource(path: string): Promise<SizedSource & { name: string }> {
  const info = await stat(path);
  if (!info.isFile()) throw new Error(`fileSource: ${path} is not a file.`);
  return { stream: createReadStream(path), size: info.size, name: basename(path) };
}
