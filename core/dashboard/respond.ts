/**
 * The dashboard's answers: a page, a redirect (POST-redirect-GET), its static files and the JSON
 * its script fetches, each with the headers every dashboard answer carries (docs/dashboard.md,
 * "Headers"): a Content-Security-Policy of its own origin only, no Referer, no sniffing, no framing,
 * nothing kept by a cache.
 */
import { isApiError, statusOf } from '../errors.js';
import type { CoreResponse } from '../pipeline/request.js';
import type { Html } from './html.js';

export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export const page = (status: number, body: Html, headers: Record<string, string> = {}): CoreResponse => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders, ...headers },
  body: body.text,
});

export const redirect = (location: string, headers: Record<string, string> = {}): CoreResponse => ({ status: 303, headers: { location, ...securityHeaders, ...headers }, body: null });

export const jsonAnswer = (status: number, value: unknown, headers: Record<string, string> = {}): CoreResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...securityHeaders, ...headers },
  body: JSON.stringify(value),
});

export const staticFile = (type: string, text: string): CoreResponse => ({ status: 200, headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' }, body: text });

/** A JSON route of the dashboard's script: its refusals answered as JSON (`{"error": {"code", "message"}}`) for the script to show. */
export function json<R>(handle: (request: R) => Promise<CoreResponse>) {
  return async (request: R): Promise<CoreResponse> => {
    try {
      return await handle(request);
    } catch (error) {
      // A refusal is the script's to show; anything else is the frame's (a 500 logged).
      if (!isApiError(error)) throw error;
      return jsonAnswer(statusOf(error.code), { error: { code: error.code, message: error.message } }, error.headers ?? {});
    }
  };
}
