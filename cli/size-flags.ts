import * as v from 'valibot';
import { defaultUploadLimits, formatSize } from '../core/uploads/limits.js';

const units: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/**
 * A size as people write it: plain bytes (`1048576`), or a number with a unit, decimal (`500MB`,
 * 1000-based, as disks and networks count) or binary (`20GiB`, 1024-based). Null when it is not one,
 * or not a whole number of bytes above 0 within what a number holds exactly.
 */
export function parseSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*$/i.exec(text);
  if (!match) return null;
  const bytes = Number(match[1]) * units[(match[2] ?? '').toLowerCase()]!;
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

function sizeSchema(flag: string) {
  return v.pipe(
    v.union([v.string(), v.number()]),
    v.transform((value) => parseSize(String(value))),
    v.check((bytes): bytes is number => bytes !== null, `${flag} must be a size such as 20GiB, 500MB or 1048576 (bytes)`),
    v.transform((bytes) => bytes!),
  );
}

/** `marketkit serve`'s upload size limits (docs/uploads.md, "Limits"). */
export const sizeFlags = {
  options: {
    'max-upload-size': { type: 'string' },
    'max-image-size': { type: 'string' },
  },
  help: [
    ['--max-upload-size <size>', `The largest listing file an upload may hold, e.g. 20GiB, 500MB or plain bytes; past it 413 PAYLOAD_TOO_LARGE and nothing kept (env MARKETKIT_MAX_UPLOAD_SIZE; default ${formatSize(defaultUploadLimits.maxFileBytes)}; docs/uploads.md).`],
    ['--max-image-size <size>', `The largest gallery image, the same way (env MARKETKIT_MAX_IMAGE_SIZE; default ${formatSize(defaultUploadLimits.maxImageBytes)}).`],
  ] as [string, string][],
  entries: {
    'max-upload-size': v.optional(sizeSchema('max-upload-size')),
    'max-image-size': v.optional(sizeSchema('max-image-size')),
  },
  /** The values the environment gives, as the command's defaults (a flag overrides each). */
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    return {
      ...(env.MARKETKIT_MAX_UPLOAD_SIZE ? { 'max-upload-size': env.MARKETKIT_MAX_UPLOAD_SIZE } : {}),
      ...(env.MARKETKIT_MAX_IMAGE_SIZE ? { 'max-image-size': env.MARKETKIT_MAX_IMAGE_SIZE } : {}),
    };
  },
  /** The parsed flags as createMarketplace's options. */
  toOptions(values: { 'max-upload-size'?: number | undefined; 'max-image-size'?: number | undefined }): { maxFileBytes?: number; maxImageBytes?: number } {
    return {
      ...(values['max-upload-size'] !== undefined ? { maxFileBytes: values['max-upload-size'] } : {}),
      ...(values['max-image-size'] !== undefined ? { maxImageBytes: values['max-image-size'] } : {}),
    };
  },
} as const;
