/**
 * A small client under test: it publishes a listing (create, signed upload, confirm, submit) and
 * copes with what a real marketplace does now and then: 429 and 503 with Retry-After on any step,
 * a PUT whose connection breaks, and an upload URL that expired (403) before the PUT.
 * docs/testing.md tests it with node:test, Vitest and MSW against marketkit/testing.
 */
export interface ClientOptions {
  /** The API base, ending in /api/v1. */
  api: string;
  token: string;
  /** The fetch to use (default: the global one). Tests pass the kit's. */
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** How many times a step is retried (default 3). */
  retries?: number;
  /** How to wait (default: setTimeout). Tests pass one that records and returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Listing {
  title: string;
  slug: string;
  filename: string;
  file: Uint8Array<ArrayBuffer>;
  contentType?: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export function uploadClient(options: ClientOptions) {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const retries = options.retries ?? 3;
  const sleep = options.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** Waits out a 429 or 503 (Retry-After seconds, else 1 s) and tries again, up to `retries` times. */
  async function withRetries(attempt: () => Promise<Response>): Promise<Response> {
    for (let tries = 0; ; tries++) {
      const response = await attempt();
      if ((response.status !== 429 && response.status !== 503) || tries >= retries) return response;
      await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000);
    }
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await withRetries(() =>
      doFetch(`${options.api}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const json = (await response.json()) as T & { code?: string; error?: string };
    if (!response.ok) throw new ApiFailure(response.status, json.code ?? 'UNKNOWN', json.error ?? '');
    return json;
  }

  /** Step (b): the PUT, again on a broken connection, with a fresh URL when the old one is refused (403). */
  async function putFile(assetId: string, listing: Listing): Promise<string> {
    let issued = await call<{ signed_url: string; storage_path: string }>('POST', `/assets/${assetId}/upload-url`, { filename: listing.filename });
    for (let tries = 0; ; tries++) {
      let response: Response | null = null;
      try {
        response = await withRetries(() =>
          doFetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': listing.contentType ?? 'application/zip' }, body: listing.file }),
        );
      } catch (error) {
        // fetch rejects with a TypeError when the connection breaks: the PUT is safe to repeat.
        if (!(error instanceof TypeError) || tries >= retries) throw error;
        continue;
      }
      if (response.ok) return issued.storage_path;
      if (response.status === 403 && tries < retries) {
        issued = await call('POST', `/assets/${assetId}/upload-url`, { filename: listing.filename });
        continue;
      }
      throw new ApiFailure(response.status, 'UPLOAD_FAILED', await response.text());
    }
  }

  return {
    /** Creates the listing, uploads and confirms its file, submits it: the status it ends in. */
    async publish(listing: Listing): Promise<{ id: string; status: string }> {
      const created = await call<{ id: string }>('POST', '/assets', { title: listing.title, slug: listing.slug });
      const storagePath = await putFile(created.id, listing);
      await call('POST', `/assets/${created.id}/confirm-file`, { storage_path: storagePath, file_size: listing.file.byteLength });
      const submitted = await call<{ status: string }>('POST', `/assets/${created.id}/submit`);
      return { id: created.id, status: submitted.status };
    },
  };
}
