import { ApiError } from '../errors.js';
import { rememberAnswers } from '../memo.js';
import type { CoreRequest } from './request.js';

/** Nesting deeper than this is refused before JSON.parse builds it or anything walks it. */
const maxDepth = 64;

const isJsonMediaType = rememberAnswers((contentType: string): boolean => {
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
});

/** Reads at most `maxBytes` of the body; 413 past it. */
async function readLimited(request: CoreRequest, maxBytes: number): Promise<Uint8Array> {
  const declared = request.header('content-length');
  if (declared && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  return readAllBytes(request.body, maxBytes);
}

/**
 * Every byte of a body, in one array; past `maxBytes` (none by default), 413. The one body reader:
 * the JSON reader, the testing kit (which reads a body to log it) and the port suites use it.
 */
export async function readAllBytes(body: AsyncIterable<Uint8Array>, maxBytes = Infinity): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return concatBytes(chunks, total);
}

/** The parts, `total` bytes in all, as one array (the one part itself when there is one). */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.byteLength === total) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The JSON body must be at most ${maxBytes} bytes.`);
}

function exceedsDepth(text: string): boolean {
  // Nesting needs an opening bracket per level: with few of them in the whole text (most bodies),
  // there is nothing to scan. indexOf runs natively, far faster than the loop below.
  let opening = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) if (++opening > maxDepth) return nestedTooDeep(text);
  }
  return false;
}

function nestedTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON body, or undefined when there is none. 415 for an explicit non-JSON content type (none
 * at all is accepted), 413 past `maxBytes`, 400 for invalid UTF-8, invalid JSON or deep nesting.
 */
export async function readJsonBody(request: CoreRequest, maxBytes: number): Promise<unknown> {
  const contentType = request.header('content-type');
  if (contentType && !isJsonMediaType(contentType)) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the body as application/json, not ${contentType.slice(0, 100)} (with curl: --json or -H 'content-type: application/json').`,
    );
  }
  const bytes = await readLimited(request, maxBytes);
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw invalidBody('body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (exceedsDepth(text)) throw invalidBody(`body is nested more than ${maxDepth} levels deep`);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidBody('body is not valid JSON');
  }
}

function invalidBody(message: string): ApiError {
  return new ApiError('INVALID_INPUT', message, { details: [{ path: 'body', message: message.replace(/^body /, '') }] });
}
