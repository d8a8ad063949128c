/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/, docs/webhooks.md "Signing"): a
 * secret is `whsec_` and the base64 of its key; a signature is `v1,` and the base64 HMAC-SHA256,
 * keyed with those bytes, of `${webhook-id}.${webhook-timestamp}.${body}`. Web Crypto only, so
 * that it runs wherever the core does.
 */
import type { IdsPort } from '../ports/ids.js';

const prefix = 'whsec_';
/** 24 random bytes: 192 bits, the size the Standard Webhooks libraries generate. */
const secretBytes = 24;

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** A new signing secret. */
export function newWebhookSecret(ids: IdsPort): string {
  return prefix + base64(ids.randomBytes(secretBytes));
}

/** The key bytes of a secret. */
function keyOf(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith(prefix) ? secret.slice(prefix.length) : secret;
  return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
}

/** `v1,<base64 HMAC-SHA256>` of the message id, the timestamp (whole seconds) and the body. */
export async function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', keyOf(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated (a receiver with any of them verifies). */
export async function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Promise<string> {
  return (await Promise.all(secrets.map((secret) => signWebhook(secret, id, timestampSeconds, body)))).join(' ');
}
