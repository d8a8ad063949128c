/**
 * The default upload limits (docs/uploads.md, "Limits"): a listing file up to 20 GiB, since the
 * packs sold here (Unreal projects, texture and audio libraries) are commonly 1 to 20 GB; a gallery
 * image up to 10 MiB. createMarketplace's maxFileBytes and maxImageBytes (and `marketkit serve
 * --max-upload-size`, `--max-image-size`) change them.
 */
export const defaultUploadLimits = { maxFileBytes: 20 * 2 ** 30, maxImageBytes: 10 * 2 ** 20 } as const;

export interface UploadLimits {
  maxFileBytes: number;
  maxImageBytes: number;
}

/** A size as people read it: the largest binary unit that divides it, else bytes. */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [['TiB', 2 ** 40], ['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor} ${unit}`;
  }
  return `${bytes} bytes`;
}
