/** A few lines of client for the kit's own tests: JSON through the kit's in-process fetch. */
import type { TestAccount, TestMarketplace } from '../../testing/index.js';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function send<T = any>(
  mk: Pick<TestMarketplace, 'fetch' | 'api'>,
  method: string,
  path: string,
  options: { as?: TestAccount | null; body?: unknown } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(options.as ? options.as.headers : {}) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await mk.fetch(path.startsWith('http') ? path : `${mk.api}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

/** create, upload-url, PUT, confirm-file: a draft with a confirmed file. */
export async function draftWithFile(mk: TestMarketplace, seller: TestAccount, create: Record<string, unknown>) {
  const created = await send(mk, 'POST', '/assets', { as: seller, body: create });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id: string = created.body.id;
  const issued = await send(mk, 'POST', `/assets/${id}/upload-url`, { as: seller, body: { filename: 'pack.zip' } });
  const bytes = new TextEncoder().encode('PK\u0003\u0004 test bytes');
  const put = await mk.fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes });
  if (put.status !== 200) throw new Error(`PUT: ${put.status}`);
  const confirmed = await send(mk, 'POST', `/assets/${id}/confirm-file`, { as: seller, body: { storage_path: issued.body.storage_path, file_size: bytes.byteLength } });
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return id;
}
