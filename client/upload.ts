/**
 * Step (b) of the upload flow: the PUT of the bytes to a signed URL, streamed, with progress.
 * A source is bytes, a Blob (a File in a browser), a ReadableStream or async iterable of bytes,
 * or a `SizedSource` ({ stream, size }) such as `fileSource(path)` makes on Node. The size is sent
 * as Content-Length when known (S3 refuses a PUT without it); the bytes actually sent are what
 * confirm-file is told.
 */
import { errorFromResponse, MarketKitError } from './errors.js';
import { nextDelay, sleep } from './retry.js';
import type { Transport } from './http.js';

/** A stream whose length is known in advance, with the name and type it had, if any. */
export interface SizedSource {
  stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  size: number;
  /** The file name, used when the call names none. */
  name?: string;
  type?: string;
}

export type UploadSource = Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | SizedSource;

export interface UploadProgress {
  /** Bytes handed to the network so far. */
  loaded: number;
  /** The size when known, else null. */
  total: number | null;
}

interface Prepared {
  /** A fresh body each call; null after the first call when the source cannot be read twice. */
  open(): ReadableStream<Uint8Array> | null;
  size: number | null;
  name: string | undefined;
  type: string | undefined;
  /** Bytes and Blobs can be sent again after a failure; a stream cannot. */
  replayable: boolean;
}

const chunkBytes = 64 * 1024;

function isSized(source: UploadSource): source is SizedSource {
  return typeof source === 'object' && source !== null && 'stream' in source && 'size' in source && typeof (source as SizedSource).size === 'number';
}

export function fromBytes(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunkBytes));
      offset += chunkBytes;
    },
  });
}

function fromIterable(iterable: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value instanceof Uint8Array ? value : new Uint8Array(value as ArrayBuffer));
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

function once(stream: ReadableStream<Uint8Array>): () => ReadableStream<Uint8Array> | null {
  let used = false;
  return () => {
    if (used) return null;
    used = true;
    return stream;
  };
}

function toStream(value: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  return value instanceof ReadableStream ? value : fromIterable(value);
}

const contentTypes: Record<string, string> = {
  zip: 'application/zip',
  webp: 'image/webp',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  json: 'application/json',
  txt: 'text/plain',
};

/** The type an upload of this file name is sent with: from its extension, else application/octet-stream. */
export function contentTypeOf(filename: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  return (extension && contentTypes[extension]) ?? 'application/octet-stream';
}

export function prepareSource(source: UploadSource): Prepared {
  if (source instanceof Uint8Array) return { open: () => fromBytes(source), size: source.byteLength, name: undefined, type: undefined, replayable: true };
  if (source instanceof ArrayBuffer) return prepareSource(new Uint8Array(source));
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    const name = typeof (source as File).name === 'string' ? (source as File).name : undefined;
    return { open: () => source.stream(), size: source.size, name, type: source.type || undefined, replayable: true };
  }
  if (isSized(source)) return { open: once(toStream(source.stream)), size: source.size, name: source.name, type: source.type, replayable: false };
  if (source instanceof ReadableStream || (typeof source === 'object' && source !== null && Symbol.asyncIterator in source)) {
    return { open: once(toStream(source as ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>)), size: null, name: undefined, type: undefined, replayable: false };
  }
  throw new TypeError('marketkit/client: an upload source is bytes, a Blob, a ReadableStream, an async iterable of bytes, or { stream, size }.');
}

/**
 * Counts the bytes as fetch pulls them, reporting progress every 64 KiB and when the announced
 * size is reached. `sent.reported` lets the caller report the final count once the server has
 * answered: a stream's end (flush) may come after the answer, or never, when the reader stops
 * reading at the announced length.
 */
function counted(stream: ReadableStream<Uint8Array>, total: number | null, onProgress: ((progress: UploadProgress) => void) | undefined, sent: Sent) {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent.bytes += chunk.byteLength;
        if (onProgress && (sent.bytes - sent.reported >= chunkBytes || sent.bytes === total)) {
          sent.reported = sent.bytes;
          onProgress({ loaded: sent.bytes, total });
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

interface Sent {
  bytes: number;
  reported: number;
}

let requestStreams: boolean | undefined;

/**
 * Whether to stream the request body: on runtimes whose fetch sends a ReadableStream body (Node,
 * Deno, Bun). Not in a browser page: Firefox and Safari cannot, and Chromium can only over HTTP/2,
 * failing on an HTTP/1.1 server; there the bytes go as one Blob.
 */
export function supportsRequestStreams(): boolean {
  if (requestStreams !== undefined) return requestStreams;
  if (typeof (globalThis as { document?: unknown }).document !== 'undefined') return (requestStreams = false);
  try {
    let duplexAccessed = false;
    const hasContentType = new Request('http://localhost/', {
      body: new ReadableStream(),
      method: 'POST',
      get duplex() {
        duplexAccessed = true;
        return 'half';
      },
    } as RequestInit).headers.has('content-type');
    requestStreams = duplexAccessed && !hasContentType;
  } catch {
    requestStreams = false;
  }
  return requestStreams;
}

async function collect(stream: ReadableStream<Uint8Array>, sent: Sent): Promise<Blob> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    parts.push(next.value);
    sent.bytes += next.value.byteLength;
  }
  return new Blob(parts as BlobPart[]);
}

export interface PutOptions {
  contentType: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/**
 * PUTs the source to a signed URL, without an Authorization header. Retried on a 5xx or a failed
 * connection only when the source can be read again (bytes, Blob). Resolves with the bytes sent.
 */
export async function putToSignedUrl(transport: Transport, signedUrl: string, prepared: Prepared, options: PutOptions): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const body = prepared.open();
    if (!body) throw new MarketKitError({ status: 0, code: 'NETWORK_ERROR', message: 'The upload failed and its stream cannot be read again; upload again from the start.' });
    const sent: Sent = { bytes: 0, reported: 0 };
    const headers: Record<string, string> = { 'content-type': options.contentType };
    if (prepared.size !== null) headers['content-length'] = String(prepared.size);
    options.onProgress?.({ loaded: 0, total: prepared.size });
    const init: RequestInit & { duplex?: 'half' } = { headers, ...(options.signal ? { signal: options.signal } : {}) };
    if (supportsRequestStreams()) {
      init.body = counted(body, prepared.size, options.onProgress, sent);
      init.duplex = 'half';
    } else {
      // Without request streams the bytes go whole; progress is reported when they are gathered and when sent.
      init.body = await collect(body, sent);
    }
    let failure: MarketKitError;
    let status: number | null = null;
    try {
      const response = await transport.fetchOnce('PUT', signedUrl, init);
      if (response.ok) {
        await response.body?.cancel();
        // The last count, before anything else happens (confirm-file), whatever the stream's end did.
        if (sent.reported !== sent.bytes) options.onProgress?.({ loaded: sent.bytes, total: prepared.size });
        if (prepared.size !== null && sent.bytes !== prepared.size) {
          throw new MarketKitError({ status: 0, code: 'INVALID_INPUT', message: `The upload source gave ${sent.bytes} bytes, not the ${prepared.size} it announced.` });
        }
        return sent.bytes;
      }
      status = response.status;
      failure = await errorFromResponse(response, 'PUT', 'the signed upload URL', Date.now());
    } catch (error) {
      if (!(error instanceof MarketKitError) || error.code !== 'NETWORK_ERROR') throw error;
      failure = error;
    }
    const outcome = status === null ? ({ kind: 'network' } as const) : ({ kind: 'status', status, retryAfterSeconds: failure.retryAfterSeconds } as const);
    const delay = nextDelay(transport.policy, outcome, 'PUT', attempt, prepared.replayable);
    if (delay === null) throw failure;
    await sleep(delay, options.signal);
  }
}

