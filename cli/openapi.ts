import * as v from 'valibot';
import { generateOpenApi } from '../core/http/openapi.js';
import { helpText, parseCommand, type CommandSpec } from './args.js';

export const openapiCommand = {
  name: 'openapi',
  summary: 'Print the OpenAPI 3.1 document of the REST API (for code generators and linters).',
  usage: 'marketkit openapi [--site-url https://market.example] > openapi.json',
  options: { 'site-url': { type: 'string' } },
  help: [['--site-url <url>', 'The address clients reach, for the document’s servers (env MARKETKIT_SITE_URL; default http://127.0.0.1:8787).']],
  schema: v.object({
    'site-url': v.pipe(
      v.string(),
      v.url('site-url must be an absolute http(s) URL'),
      v.regex(/^https?:\/\//, 'site-url must start with http:// or https://'),
      v.transform((url) => url.replace(/\/+$/, '')),
    ),
  }),
} satisfies CommandSpec<v.GenericSchema>;

export async function runOpenapi(argv: string[], env: NodeJS.ProcessEnv, out: (text: string) => void): Promise<void> {
  const parsed = parseCommand(openapiCommand, argv, { 'site-url': env.MARKETKIT_SITE_URL ?? 'http://127.0.0.1:8787' });
  if (parsed.help) {
    out(helpText(openapiCommand));
    return;
  }
  out(JSON.stringify(generateOpenApi(parsed.values['site-url']), null, 2));
}
