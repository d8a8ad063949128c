import * as v from 'valibot';
import { memoryBlobs, memoryStorage } from '../adapters/memory/index.js';
import { nodeApiReference, serve } from '../bindings/node/index.js';
import { createMarketplace, marketkitVersion } from '../core/marketplace.js';
import { scopes } from '../core/domain/scopes.js';
import { helpText, parseCommand, PortNumber, type CommandSpec } from './args.js';

export const serveCommand = {
  name: 'serve',
  summary: 'Serve the marketplace API (REST under /api/v1) on Node.',
  usage: 'marketkit serve [--port 8787] [--host 127.0.0.1] [--memory]',
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    memory: { type: 'boolean' },
    'site-url': { type: 'string' },
  },
  help: [
    ['-p, --port <n>', 'Port to listen on (env PORT; default 8787; 0 picks a free one).'],
    ['--host <addr>', 'Address to listen on (env HOST; default 127.0.0.1).'],
    ['--memory', 'Keep all data in memory (lost when the server stops).'],
    ['--site-url <url>', 'The public address clients reach, if not http://host:port (env MARKETKIT_SITE_URL).'],
  ],
  schema: v.object({
    port: PortNumber,
    host: v.pipe(v.string(), v.minLength(1, 'host must not be empty')),
    memory: v.optional(v.boolean(), false),
    'site-url': v.optional(v.pipe(v.string(), v.url('site-url must be an absolute http(s) URL'))),
  }),
} satisfies CommandSpec<v.GenericSchema>;

export async function runServe(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(serveCommand, argv, {
    port: env.PORT ?? 8787,
    host: env.HOST ?? '127.0.0.1',
    ...(env.MARKETKIT_SITE_URL ? { 'site-url': env.MARKETKIT_SITE_URL } : {}),
  });
  if (parsed.help) {
    out(helpText(serveCommand));
    return;
  }
  const options = parsed.values;
  const storage = memoryStorage();
  const blobs = memoryBlobs();
  // With port 0 the site URL is known only once listening; the handler derives it per request then.
  const marketplace = createMarketplace({
    storage,
    blobs,
    apiReference: nodeApiReference(),
    ...(options['site-url'] ? { siteUrl: options['site-url'] } : {}),
  });
  const running = await serve(marketplace, { port: options.port, host: options.host });

  const seller = await marketplace.admin.createAccount({
    username: 'dev-seller',
    display_name: 'Dev Seller',
    seller_status: 'approved',
    payouts_connected: true,
    subscription_tier: 'pro',
    plan_features: ['scheduled_publishing'],
  });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'dev token', scopes: [...scopes] });
  const base = options['site-url'] ?? running.url;

  out(`MarketKit ${marketkitVersion} is serving ${base}`);
  out(`  REST API    ${base}/api/v1`);
  out(`  Reference   ${base}/api/v1/docs  (OpenAPI document: ${base}/api/v1/openapi.json)`);
  out(`  Storage     in memory: everything is lost when this process stops`);
  out(`  Dev seller  dev-seller (approved, payouts connected, plan pro)`);
  out(`  Dev token   ${token}`);
  out(`              all six scopes; shown once, keep it`);
  out('');
  out(`Try: curl -H "Authorization: Bearer ${token}" ${base}/api/v1/me`);
  out('Stop with Ctrl-C.');

  await new Promise<void>((resolve) => {
    const stop = () => {
      out('Stopping…');
      running.close().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
