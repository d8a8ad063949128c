/**
 * The two operations of the OpenAPI document that the client reaches at a URL an earlier answer
 * gave rather than at a path of its own: `uploadToSignedUrl` (upload-url's `signed_url`, which
 * may be the blob store's, S3 say) and `getImage` (confirm-image's `public_url`). Neither carries
 * the client's credential: the URL is its own authority.
 */
import { errorFromResponse, MarketKitError } from './errors.js';
import type { Transport } from './http.js';
import { nextDelay, sleep } from './retry.js';
import { contentTypeOf, prepareSource, putToSignedUrl, type UploadProgress, type UploadSource } from './upload.js';

export interface SignedUploadInput {
  /** The `signed_url` of an upload-url answer, as it was given. */
  signed_url: string;
  source: UploadSource;
  /** Default: the source's own type, else from `filename`'s extension, else application/octet-stream. */
  content_type?: string;
  /** Only for the default content type. */
  filename?: string;
}

export interface SignedUploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

export interface UrlOperations {
  /** PUTs the bytes to a signed upload URL (streamed, with progress) and resolves with the number of bytes sent, which confirm-file is told. */
  uploadToSignedUrl(input: SignedUploadInput, options?: SignedUploadOptions): Promise<{ size: number }>;
  /** A confirmed gallery image, at the `public_url` confirm-image answered, as a Blob with its content type. */
  getImage(input: { public_url: string }, options?: { signal?: AbortSignal }): Promise<Blob>;
}

export function urlOperations(transport: Transport): UrlOperations {
  async function getImage({ public_url: url }: { public_url: string }, { signal }: { signal?: AbortSignal } = {}): Promise<Blob> {
    for (let attempt = 0; ; attempt++) {
      let failure: MarketKitError;
      let status: number | null = null;
      try {
        const response = await transport.fetchOnce('GET', url, signal ? { signal } : {});
        if (response.ok) return await response.blob();
        status = response.status;
        failure = await errorFromResponse(response, 'GET', 'the image URL', Date.now());
      } catch (error) {
        if (!(error instanceof MarketKitError) || error.code !== 'NETWORK_ERROR') throw error;
        failure = error;
      }
      const outcome = status === null ? ({ kind: 'network' } as const) : ({ kind: 'status', status, retryAfterSeconds: failure.retryAfterSeconds } as const);
      const delay = nextDelay(transport.policy, outcome, 'GET', attempt);
      if (delay === null) throw failure;
      await sleep(delay, signal);
    }
  }

  return {
    async uploadToSignedUrl({ signed_url: url, source, content_type: contentType, filename }, { onProgress, signal } = {}) {
      const prepared = prepareSource(source);
      const size = await putToSignedUrl(transport, url, prepared, {
        contentType: contentType ?? prepared.type ?? contentTypeOf(filename ?? prepared.name ?? ''),
        ...(onProgress ? { onProgress } : {}),
        ...(signal ? { signal } : {}),
      });
      return { size };
    },
    getImage,
  };
}
