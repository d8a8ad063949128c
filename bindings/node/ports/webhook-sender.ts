/**
 * The webhook sender on node:http and node:https (docs/webhooks.md, "Safety"), for Node, Bun and
 * Deno alike. Every attempt resolves the host itself, refuses it when any address it resolves to
 * is loopback, private, link-local, metadata or otherwise local (unless the operator allows it),
 * and connects to the address it checked, so that a name that resolves elsewhere between the
 * check and the connection (DNS rebinding) cannot slip through. No redirect is followed, no
 * connection is kept for another attempt, and at most `maxResponseBytes` of an answer are read.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIpLiteral, forbiddenAddressKind, webhookUrlProblem, type WebhookTargetPolicy } from '../../../core/webhooks/addresses.js';
import type { WebhookResponse, WebhookSenderPort } from '../../../core/ports/webhook-sender.js';

export interface NodeWebhookSenderOptions {
  /** Plain http:// targets (local testing only). Default false. */
  allowHttp?: boolean;
  /** Loopback, private, link-local and metadata addresses (local testing only). Default false. */
  allowPrivateAddresses?: boolean;
  /** How much of an answer is read before the connection is closed. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Resolves a host name to its addresses (default: the system's, dns.lookup with all: true). */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** An address checked for this attempt, and its family. */
interface Vetted {
  address: string;
  family: 4 | 6;
}

/**
 * What a delivery's log says of a host it may not reach: that it was refused, never what it
 * resolved to (or whether it resolved at all), so the log a seller reads is no DNS oracle mapping
 * internal names to private addresses (docs/webhooks.md, "Safety").
 */
const notPublic = (host: string) => `refused: ${host} does not resolve to a public address`;

/** Why `url`'s host may not be reached, or the address to connect to. */
async function vet(url: URL, policy: WebhookTargetPolicy, resolve: NonNullable<NodeWebhookSenderOptions['resolve']>): Promise<Vetted | { refused: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = isIpLiteral(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await resolve(host);
  if (found.length === 0) return { refused: notPublic(host) };
  if (!policy.allowPrivateAddresses) {
    for (const { address } of found) {
      const kind = forbiddenAddressKind(address);
      // Any local address among them refuses the host: a name that points partly inward is not a public endpoint.
      if (kind) return { refused: notPublic(host) };
    }
  }
  const first = found[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The sender `createMarketplace({ webhooks: { sender } })` takes; `marketkit serve` makes one with its flags. */
export function nodeWebhookSender(options: NodeWebhookSenderOptions = {}): WebhookSenderPort {
  const policy: WebhookTargetPolicy = { allowHttp: options.allowHttp ?? false, allowPrivateAddresses: options.allowPrivateAddresses ?? false };
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const resolve = options.resolve ?? systemResolve;
  return {
    async send({ url: target, headers, body, timeoutMs }) {
      const started = performance.now();
      const took = () => performance.now() - started;
      const failed = (error: string): WebhookResponse => ({ error, latencyMs: took() });
      // Checked again at every attempt: the rules may have changed since the URL was saved.
      const problem = webhookUrlProblem(target, policy);
      if (problem) return failed(`refused: the url ${problem}`);
      const url = new URL(target);
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<WebhookResponse>((resolve) => {
        deadline = setTimeout(() => resolve(failed('timeout')), timeoutMs);
      });
      const attempt = async (): Promise<WebhookResponse> => {
        let vetted: Awaited<ReturnType<typeof vet>>;
        try {
          vetted = await vet(url, policy, resolve);
        } catch (error) {
          // A name that does not exist reads as one refused (whether an internal name exists is the oracle too);
          // a failure that may pass (a DNS server that did not answer) says so, and nothing more.
          const code = (error as NodeJS.ErrnoException).code;
          return failed(code === 'ENOTFOUND' || code === 'ENODATA' ? notPublic(url.hostname) : `DNS: ${code ?? 'lookup failed'} for ${url.hostname}`);
        }
        if ('refused' in vetted) return failed(vetted.refused);
        // The connection goes to the address checked above, whatever DNS answers now; TLS still checks the host name.
        const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
          if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: Vetted[]) => void)(null, [vetted]);
          else callback(null, vetted.address, vetted.family);
        };
        const payload = Buffer.from(body);
        return new Promise<WebhookResponse>((resolve) => {
          const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
            url,
            { method: 'POST', headers: { ...headers, 'content-length': String(payload.byteLength), connection: 'close' }, lookup: pinned, agent: false },
            (response: IncomingMessage) => {
              resolve({ status: response.statusCode ?? 0, latencyMs: took() });
              // Read a little of the answer, then hang up: nothing of it is kept.
              let read = 0;
              response.on('data', (chunk: Buffer) => {
                read += chunk.byteLength;
                if (read > maxResponseBytes) response.destroy();
              });
              response.on('error', () => {});
            },
          );
          request.on('error', (error: NodeJS.ErrnoException) => resolve(failed(error.code ? `${error.code}: ${error.message}` : error.message)));
          // The connection ends at the deadline whatever state it is in, an answer still trickling in included.
          const hangUp = setTimeout(() => {
            resolve(failed('timeout'));
            request.destroy();
          }, Math.max(0, timeoutMs - took()));
          request.on('close', () => clearTimeout(hangUp));
          request.end(payload);
        });
      };
      try {
        return await Promise.race([attempt(), timedOut]);
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
