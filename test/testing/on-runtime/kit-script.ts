/**
 * The testing kit as a client's test uses it, run under Node, Bun or Deno by
 * test/testing/runtimes.test.ts. Prints one JSON line of what it observed.
 */
import { createTestMarketplace } from '../../../testing/index.js';

const mk = createTestMarketplace({ seed: { assets: [{ owner: 'seller', title: 'Seeded pack', slug: 'seeded-pack', status: 'published', file: true, images: 1 }] } });
const seller = await mk.seller();
const json = { ...seller.headers, 'content-type': 'application/json' };
const seen: Record<string, unknown> = {};

const created = await mk.fetch('/api/v1/assets', { method: 'POST', headers: json, body: JSON.stringify({ title: 'Runtime pack', slug: 'runtime-pack' }) });
const { id } = (await created.json()) as { id: string };
seen.created = created.status;
seen.read = (await mk.fetch(`/api/v1/assets/${id}`, { headers: seller.headers })).status;
mk.faults.rateLimit('GET /me', { retryAfter: 3 });
const limited = await mk.fetch('/api/v1/me', { headers: seller.headers });
seen.limited = [limited.status, limited.headers.get('retry-after')];
mk.faults.drop('GET /me');
seen.dropped = await mk.fetch('/api/v1/me', { headers: seller.headers }).then(() => 'answered', (error: Error) => error.name);
await mk.reset();
const list = (await (await mk.fetch('/api/v1/assets', { headers: seller.headers })).json()) as { data: { slug: string }[] };
seen.afterReset = list.data.map((a) => a.slug);
const server = await mk.listen();
seen.overHttp = (await fetch(`${server.api}/me`, { headers: seller.headers })).status;
await mk.close();
console.log(JSON.stringify(seen));
