/**
 * `marketkit upload <asset-id> <file>`: a seller's file to their listing, resumably (docs/uploads.md,
 * "marketkit upload"). The typed client's uploadFile does the work: tus chunks with their checksums,
 * resumes from the server's offset after a failure, and the upload in progress kept in a state file
 * so that the same command run again after Ctrl-C or a kill goes on where the server stands.
 */
import * as v from 'valibot';
import { defaultResumeFile, fileResumeStore } from '../bindings/node/client/resume-store.js';
import { fileSource, type FileSource } from '../bindings/node/client/file-source.js';
import { nodeFetch } from '../bindings/node/client/streaming-fetch.js';
import { createClient, MarketKitError } from '../client/index.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { parseSize } from './size-flags.js';
import { terminalText } from './terminal-text.js';
import { barReporter, formatBytes, jsonReporter, type Reporter } from './upload-progress.js';

/** The site and the resume state of a seller's command (upload, release): checked the same way. */
export const sellerSchemas = {
  url: v.pipe(v.string(), v.regex(/^https?:\/\/[^/]/, 'url (MARKETKIT_URL) must be an absolute http(s) URL'), v.transform((url) => url.replace(/\/+$/, ''))),
  state: v.pipe(v.string(), v.minLength(1, 'state must not be empty')),
};

/** Their defaults: MARKETKIT_URL else what marketkit serve listens on; MARKETKIT_UPLOAD_STATE else the user's state folder. */
export const sellerDefaults = (env: NodeJS.ProcessEnv) => ({ url: env.MARKETKIT_URL ?? 'http://127.0.0.1:8787', state: env.MARKETKIT_UPLOAD_STATE || defaultResumeFile(env) });

/** The exit codes, as --help and the docs give them. */
export const uploadExit = { confirmed: 0, failed: 1, usage: 2, checksum: 3, interrupted: 130 } as const;

const sizeOption = (flag: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.transform((text) => parseSize(text)),
      v.check((bytes): bytes is number => bytes !== null, `${flag} must be a size such as 8MiB or 16777216 (bytes)`),
      v.transform((bytes) => bytes!),
    ),
  );

export const uploadCommand = {
  name: 'upload',
  summary: 'Upload a file to your listing, resumably, with a progress bar: run it again after Ctrl-C or a kill and it goes on (docs/uploads.md).',
  usage: 'MARKETKIT_API_TOKEN=smcp_... marketkit upload <asset-id> <file> [--url https://market.example] [--sha256 <hex>]',
  positionals: ['asset-id', 'file'],
  options: {
    url: { type: 'string' },
    sha256: { type: 'string' },
    json: { type: 'boolean' },
    'chunk-size': { type: 'string' },
    'resumable-threshold': { type: 'string' },
    state: { type: 'string' },
  },
  help: [
    ['--url <url>', 'The marketplace site (env MARKETKIT_URL; default http://127.0.0.1:8787, what marketkit serve listens on).'],
    ['--sha256 <hex>', "The file's SHA-256 as you know it: the server checks it against the digest of the bytes it received, and confirms nothing when they differ (exit 3)."],
    ['--json', 'JSON lines on stdout (progress, resumed, confirmed, error), also on a terminal; the default when stdout is not a terminal.'],
    ['--chunk-size <size>', 'Bytes per request of the resumable protocol (default 8MiB): what a cut connection can lose.'],
    ['--resumable-threshold <size>', 'From this size on the file goes up resumably (env MARKETKIT_RESUMABLE_THRESHOLD; default 64MiB); below it, in one PUT.'],
    ['--state <file>', 'Where uploads in progress are remembered (env MARKETKIT_UPLOAD_STATE; default $XDG_STATE_HOME/marketkit/uploads.json, else ~/.local/state/marketkit/uploads.json).'],
    ['MARKETKIT_API_TOKEN', 'A developer token (smcp_...) with assets:write.'],
    ['exit codes', '0 confirmed; 1 the upload failed (run again to resume); 2 a usage error; 3 --sha256 is not the digest of what the server received; 130 interrupted (run again to resume).'],
  ],
  schema: v.object({
    url: sellerSchemas.url,
    sha256: v.optional(v.pipe(v.string(), v.transform((hex) => hex.toLowerCase()), v.regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 hexadecimal characters'))),
    json: v.optional(v.boolean(), false),
    'chunk-size': sizeOption('chunk-size'),
    'resumable-threshold': sizeOption('resumable-threshold'),
    state: sellerSchemas.state,
  }),
} satisfies CommandSpec<v.GenericSchema>;

export interface UploadIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  /** Where a failure is told in words when stdout carries JSON lines. */
  stderr: (text: string) => void;
  /** Ctrl-C and SIGTERM: the upload stops, to be resumed by running the command again. */
  onInterrupt(stop: (signal: string) => void): void;
}

export const processIo: UploadIo = {
  stdout: process.stdout,
  stderr: (text) => console.error(text),
  onInterrupt(stop) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop(signal));
  },
};

/** The file to upload, or a usage error saying why it cannot be read. */
export async function openFile(path: string): Promise<FileSource> {
  try {
    return await fileSource(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (error as Error).message;
    throw new UsageError(`cannot read ${path}: ${reason}.`);
  }
}

export async function runUpload(argv: string[], env: NodeJS.ProcessEnv, print: (text: string) => void, io: UploadIo = processIo): Promise<number> {
  const parsed = parseCommand(uploadCommand, argv, {
    ...sellerDefaults(env),
    ...(env.MARKETKIT_RESUMABLE_THRESHOLD ? { 'resumable-threshold': env.MARKETKIT_RESUMABLE_THRESHOLD } : {}),
  });
  if (parsed.help) {
    print(helpText(uploadCommand));
    return uploadExit.confirmed;
  }
  const options = parsed.values;
  const [assetId, path] = parsed.positionals as [string, string];
  const token = env.MARKETKIT_API_TOKEN?.trim();
  if (!token) throw new UsageError('set MARKETKIT_API_TOKEN to a developer token (smcp_...) with assets:write.\nRun "marketkit upload --help" for the options.');
  const source = await openFile(path);

  const write = (text: string) => void io.stdout.write(text);
  const json = options.json || !io.stdout.isTTY;
  const reporter: Reporter = json ? jsonReporter(write) : barReporter(write, () => io.stdout.columns || 80);
  const stop = new AbortController();
  let interrupted: string | null = null;
  io.onInterrupt((signal) => {
    interrupted = signal;
    stop.abort();
  });

  const client = createClient({ baseUrl: options.url, token, fetch: nodeFetch });
  let first = true;
  let reached = 0;
  try {
    const confirmed = await client.uploadFile(assetId, source, {
      signal: stop.signal,
      resumeStore: fileResumeStore(options.state),
      ...(options['chunk-size'] ? { chunkSize: options['chunk-size'] } : {}),
      ...(options['resumable-threshold'] ? { resumableThreshold: options['resumable-threshold'] } : {}),
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
      onProgress: ({ loaded, total }) => {
        if (first && loaded > 0) reporter.line(`Resuming ${source.name} at ${formatBytes(loaded)}, where the server stands.`, { event: 'resumed', offset: loaded, total });
        first = false;
        reached = loaded;
        reporter.progress(loaded, total ?? source.size);
      },
    });
    const { file } = confirmed;
    reporter.line(`Confirmed ${source.name} (${formatBytes(file.file_size)}) as the file of listing ${assetId}.\nsha256 ${file.sha256 ?? 'not computed by this store'}`, {
      event: 'confirmed',
      asset_id: assetId,
      storage_path: file.storage_path,
      file_size: file.file_size,
      sha256: file.sha256,
    });
    return uploadExit.confirmed;
  } catch (error) {
    if (interrupted) {
      reporter.line(`Stopped (${interrupted}) at ${formatBytes(reached)} of ${formatBytes(source.size)}: run the same command again to resume.`, { event: 'interrupted', loaded: reached, total: source.size });
      return uploadExit.interrupted;
    }
    if (!(error instanceof MarketKitError)) throw error;
    const checksum = error.code === 'CHECKSUM_MISMATCH';
    const message = checksum
      ? `the SHA-256 of what the server received is not the one given by --sha256 (${options.sha256}); nothing was confirmed. Check the file and the digest.`
      : error.code === 'NETWORK_ERROR'
        ? `${error.message}. Is the marketplace running at ${options.url}? Run the same command again to resume.`
        : `${error.message} (${error.code}).`;
    reporter.line(`marketkit upload: ${message}`, { event: 'error', code: error.code, status: error.status, error: message });
    if (json) io.stderr(terminalText(`marketkit upload: ${message}`));
    return checksum ? uploadExit.checksum : uploadExit.failed;
  }
}
