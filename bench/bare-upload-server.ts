/**
 * The ceiling for an upload on this machine (bench/uploads.bench.ts): bare node:http streaming a
 * PUT body to a file with the durability MarketKit's fs store gives an acknowledged upload (written
 * to a temporary file, fsynced, renamed into place, the directory fsynced), and nothing else: no
 * routing, no signature, no hash, no bookkeeping. Prints one JSON line ({url}) once it listens.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rename, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = await mkdtemp(join(tmpdir(), 'marketkit-bare-upload-'));
let next = 0;

async function fsync(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const server = createServer((req, res) => {
  const name = `upload-${next++}`;
  const temporary = join(dir, `${name}.tmp`);
  void (async () => {
    try {
      await pipeline(req, createWriteStream(temporary));
      await fsync(temporary);
      await rename(temporary, join(dir, name));
      await fsync(dir);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      // The bench uploads a gigabyte a round: the disk keeps none of them.
      await rm(join(dir, name), { force: true });
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  })();
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })));
const stop = () => server.close(() => void rm(dir, { recursive: true, force: true }).finally(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
