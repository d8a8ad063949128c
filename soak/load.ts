/**
 * The soak's mix (docs/operations.md, "Soak and chaos"): reads, lists, creates, updates (over REST
 * and as MCP tool calls), Idempotency-Keys sent twice, each answer checked against the ledger as
 * it comes (a read that misses an acknowledged listing, a 2xx naming another), and the peak.
 */
import type { Answer, SoakHttp } from './http.js';
import { acknowledged, pick, sleep, unique, type Ledger } from './ledger.js';

const ok = (status: number) => status >= 200 && status < 300;
/** No answer, or a 5xx: a write may or may not have been made. */
const unknownOutcome = (status: number) => status === 0 || status >= 500;

type Operation = (http: SoakHttp, ledger: Ledger) => Promise<void>;

/** The mix: each operation's share of the load. */
const mix: [share: number, operation: Operation][] = [
  [0.1, create],
  [0.4, read],
  [0.1, list],
  [0.12, (http, ledger) => update(http, ledger, 'update')],
  [0.08, idempotentCreate],
  [0.12, mcpRead],
  [0.08, (http, ledger) => update(http, ledger, 'mcp')],
];

/** One operation of the mix, chosen by share (creates only, until there are listings to read). */
export function oneOperation(http: SoakHttp, ledger: Ledger): Promise<void> {
  if (ledger.ids.length < 20) return create(http, ledger);
  let roll = Math.random();
  for (const [share, operation] of mix) {
    if (roll < share) return operation(http, ledger);
    roll -= share;
  }
  return read(http, ledger);
}

async function create(http: SoakHttp, ledger: Ledger): Promise<void> {
  const slug = `soak-${unique()}`;
  const answer = await http.send('create', 'POST', '/api/v1/assets', { body: { title: `Soak ${slug}`, slug } });
  if (answer.status === 201) acknowledged(ledger, answer.json.id, answer.json.title);
}

async function read(http: SoakHttp, ledger: Ledger): Promise<void> {
  const id = pick(ledger.ids);
  const answer = await http.send('read', 'GET', `/api/v1/assets/${id}`);
  if (answer.status === 404) ledger.staleReads.push(`GET ${id}: 404`);
  else if (answer.status === 200 && answer.json?.id !== id) ledger.wrongAnswers.push(`GET ${id}: 200 naming ${answer.json?.id}`);
}

async function list(http: SoakHttp): Promise<void> {
  await http.send('list', 'GET', '/api/v1/assets?limit=20');
}

/** MCP tool errors that are the server's, as their HTTP statuses: counted as 5xx. */
const toolFailures: Record<string, number> = { INTERNAL_ERROR: 500, SERVICE_UNAVAILABLE: 503 };
const toolCode = (answer: Answer): string | undefined => (answer.json?.result?.isError ? answer.json.result.structuredContent?.code : undefined);
const mcpStatus = (answer: Answer) => (answer.status === 200 ? (toolFailures[toolCode(answer) ?? ''] ?? 200) : answer.status);

/** A JSON-RPC tools/call over POST /api/mcp; the recorded status is the tool's failure when it failed. */
function callTool(http: SoakHttp, name: string, args: Record<string, unknown>): Promise<Answer> {
  const call = { jsonrpc: '2.0', id: unique(), method: 'tools/call', params: { name, arguments: args } };
  return http.send('mcp', 'POST', '/api/mcp', { body: call, headers: { accept: 'application/json, text/event-stream' }, statusOf: mcpStatus });
}

async function mcpRead(http: SoakHttp, ledger: Ledger): Promise<void> {
  const id = pick(ledger.ids);
  const answer = await callTool(http, 'get_asset', { asset_id: id });
  if (mcpStatus(answer) !== 200) return;
  if (toolCode(answer) === 'NOT_FOUND') ledger.staleReads.push(`get_asset ${id}: NOT_FOUND`);
  else if (answer.json?.result?.structuredContent?.id !== id) ledger.wrongAnswers.push(`get_asset ${id}: ${answer.text.slice(0, 160)}`);
}

/** A title change over REST (PATCH) or MCP (update_asset), one at a time per listing. */
async function update(http: SoakHttp, ledger: Ledger, via: 'update' | 'mcp'): Promise<void> {
  const id = pick(ledger.ids);
  const listing = ledger.listings.get(id)!;
  if (listing.busy) return;
  listing.busy = true;
  const title = `Updated ${unique()}`;
  let status: number;
  let made: boolean;
  if (via === 'update') {
    const answer = await http.send('update', 'PATCH', `/api/v1/assets/${id}`, { body: { title } });
    status = answer.status;
    made = ok(status);
  } else {
    const answer = await callTool(http, 'update_asset', { asset_id: id, title });
    status = mcpStatus(answer);
    made = status === 200 && !answer.json?.result?.isError && !answer.json?.error;
    if (status === 200 && answer.json?.error) ledger.wrongAnswers.push(`update_asset ${id}: ${answer.text.slice(0, 160)}`);
  }
  if (made) {
    listing.title = title;
    listing.unknown = [];
  } else if (unknownOutcome(status)) listing.unknown.push(title);
  listing.busy = false;
}

/** A create with an Idempotency-Key, then the retry a client makes: the same key and body must answer the same listing. */
async function idempotentCreate(http: SoakHttp, ledger: Ledger): Promise<void> {
  const key = `soak-key-${unique()}`;
  const body = { title: `Keyed ${key}`, slug: key };
  const send = () => http.send('idempotent', 'POST', '/api/v1/assets', { body, headers: { 'idempotency-key': key } });
  const first = await send();
  if (first.status === 201) acknowledged(ledger, first.json.id, body.title);
  let again = await send();
  // While the first is still running (409 IDEMPOTENCY_KEY_IN_USE) or through a kill: send it again, a bounded number of times.
  for (let tries = 0; tries < 20 && ((again.status === 409 && again.json?.code === 'IDEMPOTENCY_KEY_IN_USE') || unknownOutcome(again.status)); tries++) {
    await sleep(500);
    again = await send();
  }
  if (first.status === 201 && again.status === 201 && again.json.id !== first.json.id) ledger.idempotencyViolations.push(`${key}: ${first.json.id} then ${again.json.id}`);
  // A retry the deployment could not answer (a 5xx or none, counted with the failures) says nothing of the key; any other answer must be the first's.
  if (first.status === 201 && again.status !== 201 && !unknownOutcome(again.status)) ledger.idempotencyViolations.push(`${key}: 201 then ${again.status} ${again.text.slice(0, 120)}`);
  if (again.status === 201) acknowledged(ledger, again.json.id, body.title);
}

/** The balancer's peak: `concurrency` callers sending the mix as fast as answers come (a closed loop) for `ms`; operations a second. */
export async function measurePeak(http: SoakHttp, ledger: Ledger, ms: number, concurrency = 32): Promise<number> {
  // Listings to read first, made at once (bounded: a deployment refusing every create fails on the first check).
  for (let round = 0; round < 5 && ledger.ids.length < 20; round++) await Promise.all(Array.from({ length: 20 - ledger.ids.length }, () => create(http, ledger)));
  const until = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await oneOperation(http, ledger);
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}
