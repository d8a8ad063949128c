/**
 * Pentest finding: with no site URL configured (the default), the Host header ended up in stored
 * URLs: `Host: evil.example` on images/upload-url made public_url http://evil.example/..., which
 * confirm-image stored. Contract: every URL the API stores or returns is built from the configured
 * site URL (or the listen address), never from a request's Host unless that host is in a
 * configured list (allowedHosts, serve's --allowed-host).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { createMarketplace, type MarketplaceOptions } from '../../core/marketplace.js';
import { startCli } from '../fixtures/cli.js';
import { mcpAccept } from '../fixtures/mcp.js';
import { pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';

/** One request over node:http with exactly this Host; the JSON answer. */
function raw(base: string, method: string, path: string, host: string, headers: Record<string, string> = {}, body?: string | Uint8Array): Promise<{ status: number; body: any; text: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { host, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, body: text && (res.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The upload flow with every request sent for `host`; every answer's text, to search for a host in. */
async function uploadFlowFor(base: string, token: string, host: string) {
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const texts: string[] = [];
  const step = async (method: string, path: string, body?: unknown) => {
    const answer = await raw(base, method, `/api/v1${path}`, host, json, body === undefined ? undefined : JSON.stringify(body));
    assert.ok(answer.status < 300, `${method} ${path} for ${host}: ${answer.status} ${answer.text}`);
    texts.push(answer.text);
    return answer.body;
  };
  const created = await step('POST', '/assets', validAsset());
  await step('POST', `/assets/${created.id}/upload-url`, { filename: 'pack.zip' });
  const image = await step('POST', `/assets/${created.id}/images/upload-url`, { filename: 'shot.png' });
  // The signed URL is taken as issued: the PUT goes where it points (the server under test).
  const signed = new URL(image.signed_url);
  const put = await raw(base, 'PUT', signed.pathname + signed.search, host, { 'content-type': 'image/png' }, pngBytes);
  assert.equal(put.status, 200, put.text);
  await step('POST', `/assets/${created.id}/confirm-image`, { public_url: image.public_url });
  const asset = await step('GET', `/assets/${created.id}`);
  return { texts, asset, image };
}

describe('REST over HTTP, no site URL configured', () => {
  let server: TestServer;
  const warnings: unknown[] = [];
  before(async () => {
    server = await startServer({ onError: (error) => void warnings.push(error) });
  });
  after(() => server.close());

  test('Host: evil.example never appears in a stored or returned URL (upload-url, images/upload-url, confirm-image, GET asset)', async () => {
    const { texts, asset } = await uploadFlowFor(server.url, server.seller.token, 'evil.example');
    for (const text of texts) assert.doesNotMatch(text, /evil\.example/);
    const stored = await server.marketplace.ports.storage.listImages(asset.id);
    assert.equal(stored.length, 1);
    assert.doesNotMatch(JSON.stringify(stored), /evil\.example/);
    assert.ok(stored[0]!.public_url.startsWith('http://localhost/'), `an untrusted Host falls back to http://localhost: ${stored[0]!.public_url}`);
    const uploads = await server.marketplace.ports.storage.getUpload(stored[0]!.storage_path);
    assert.doesNotMatch(JSON.stringify(uploads), /evil\.example/);
    assert.equal(warnings.length, 1, 'the embedder hears once that no siteUrl is set');
    assert.equal((warnings[0] as Error).name, 'ConfigurationError');
  });

  test('a loopback Host (development) still gets URLs on itself', async () => {
    const { image } = await uploadFlowFor(server.url, server.seller.token, new URL(server.url).host);
    assert.ok(image.public_url.startsWith(`${server.url}/api/v1/blobs/`), image.public_url);
  });
});

describe('the site URL sources, in process (REST and MCP)', () => {
  async function market(options: Partial<MarketplaceOptions> = {}) {
    const problems: unknown[] = [];
    const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), onError: (error) => void problems.push(error), ...options });
    const seller = await marketplace.admin.createAccount({ username: `host-seller-${Math.random().toString(36).slice(2)}`, seller_status: 'approved' });
    const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 't' });
    const headers = (host: string) => ({ host, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: mcpAccept });
    const rest = async (host: string, path: string, body: unknown) => {
      const res = await marketplace.fetch(new Request(`http://${host}/api/v1${path}`, { method: 'POST', headers: headers(host), body: JSON.stringify(body) }));
      return (await res.json()) as any;
    };
    const tool = async (host: string, name: string, args: Record<string, unknown>) => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
      const res = await marketplace.fetch(new Request(`http://${host}/api/mcp`, { method: 'POST', headers: headers(host), body: JSON.stringify(body) }));
      assert.equal(res.status, 200);
      return ((await res.json()) as any).result.structuredContent;
    };
    const urlsFor = async (host: string) => {
      const asset = await rest(host, '/assets', validAsset());
      const viaRest = await rest(host, `/assets/${asset.id}/images/upload-url`, { filename: 'a.png' });
      const file = await rest(host, `/assets/${asset.id}/upload-url`, { filename: 'a.zip' });
      const viaMcp = await tool(host, 'get_image_upload_url', { asset_id: asset.id, filename: 'b.png' });
      const fileViaMcp = await tool(host, 'get_asset_upload_url', { asset_id: asset.id, filename: 'b.zip' });
      return [viaRest.public_url, viaRest.signed_url, file.signed_url, viaMcp.public_url, viaMcp.signed_url, fileViaMcp.signed_url] as string[];
    };
    return { urlsFor, problems };
  }

  const allOn = (urls: string[], base: string) => {
    for (const url of urls) assert.ok(url.startsWith(`${base}/api/v1/blobs/`), `${url} is not on ${base}`);
  };

  test('a configured siteUrl wins over every Host', async () => {
    const { urlsFor } = await market({ siteUrl: 'https://market.example', allowedHosts: ['other.example'] });
    allOn(await urlsFor('evil.example'), 'https://market.example');
    allOn(await urlsFor('other.example'), 'https://market.example');
  });

  test('allowedHosts: a listed Host gets URLs on itself; any other gets the first listed host, never its own', async () => {
    const { urlsFor, problems } = await market({ allowedHosts: ['market.example', 'cdn.market.example:8443'] });
    allOn(await urlsFor('market.example'), 'http://market.example');
    allOn(await urlsFor('market.example:8080'), 'http://market.example:8080');
    allOn(await urlsFor('cdn.market.example:8443'), 'http://cdn.market.example:8443');
    allOn(await urlsFor('cdn.market.example:9999'), 'http://market.example');
    allOn(await urlsFor('evil.example'), 'http://market.example');
    assert.deepEqual(problems, []);
  });

  test('the listen address, when known, is used for every Host not listed', async () => {
    let listening: string | undefined;
    const { urlsFor } = await market({ listenUrl: () => listening, allowedHosts: ['market.lan'] });
    listening = 'http://10.0.0.5:8787';
    allOn(await urlsFor('evil.example'), 'http://10.0.0.5:8787');
    allOn(await urlsFor('localhost:8787'), 'http://10.0.0.5:8787');
    allOn(await urlsFor('market.lan'), 'http://market.lan');
  });

  test('with none of them, an untrusted Host gets http://localhost, and onError hears of it once', async () => {
    const { urlsFor, problems } = await market();
    allOn(await urlsFor('evil.example'), 'http://localhost');
    allOn(await urlsFor('evil2.example'), 'http://localhost');
    allOn(await urlsFor('127.0.0.1:3000'), 'http://127.0.0.1:3000');
    assert.equal(problems.length, 1);
    assert.match(String(problems[0]), /ConfigurationError: .*evil\.example.*not in allowedHosts.*Set siteUrl/);
  });

  test('the hosts of mcp.allowedHosts count too, after allowedHosts', async () => {
    const { urlsFor, problems } = await market({ mcp: { allowedHosts: ['dev.example'] } });
    allOn(await urlsFor('dev.example:8787'), 'http://dev.example:8787');
    allOn(await urlsFor('evil.example'), 'http://dev.example');
    assert.deepEqual(problems, []);
  });

  test('allowedHosts is checked like mcp.allowedHosts', () => {
    assert.throws(() => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), allowedHosts: ['https://market.example'] }), /allowedHosts must hold host names/);
  });
});

describe('marketkit serve', () => {
  const ready = (out: string) => out.includes('Stop with Ctrl-C');
  const started = (banner: string) => ({ url: /is serving (\S+)/.exec(banner)![1]!, token: /Dev token\s+(\S+)/.exec(banner)![1]! });

  test('--allowed-host: listed hosts get URLs on themselves, others the listen address; the banner says which', async (t) => {
    const cli = await startCli(['serve', '--memory', '--port', '0', '--allowed-host', 'market.lan', '--allowed-host', 'shop.lan:8443'], ready);
    t.after(() => cli.stop('SIGKILL'));
    const banner = cli.stdout();
    const { url, token } = started(banner);
    assert.match(banner, /URLs {2,}built on http:\/\/127\.0\.0\.1:\d+, the listen address \(no --site-url\); for Host market\.lan, shop\.lan:8443 on that host/);
    const evil = await uploadFlowFor(url, token, 'evil.example');
    for (const text of evil.texts) assert.doesNotMatch(text, /evil\.example/);
    assert.ok(evil.image.public_url.startsWith(`${url}/api/v1/blobs/`), evil.image.public_url);
    const listed = await uploadFlowFor(url, token, 'market.lan');
    assert.ok(listed.image.public_url.startsWith('http://market.lan/api/v1/blobs/'), listed.image.public_url);
  });

  test('MARKETKIT_ALLOWED_HOSTS (comma-separated) when no --allowed-host is given', async (t) => {
    const cli = await startCli(['serve', '--memory', '--port', '0'], ready, { MARKETKIT_ALLOWED_HOSTS: 'env.lan, other.lan' });
    t.after(() => cli.stop('SIGKILL'));
    const banner = cli.stdout();
    const { url, token } = started(banner);
    assert.match(banner, /for Host env\.lan, other\.lan on that host/);
    const fromEnv = await uploadFlowFor(url, token, 'env.lan');
    assert.ok(fromEnv.image.public_url.startsWith('http://env.lan/api/v1/blobs/'), fromEnv.image.public_url);
  });

  test('--site-url: the banner says so', async (t) => {
    const cli = await startCli(['serve', '--memory', '--port', '0', '--site-url', 'https://market.example'], ready);
    t.after(() => cli.stop('SIGKILL'));
    assert.match(cli.stdout(), /URLs {2,}built on https:\/\/market\.example \(--site-url; the Host header is never used\)/);
  });
});
