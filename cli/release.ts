/**
 * `marketkit release <asset-id> <file> --version 1.2.0 --notes notes.md`: a new version of a
 * published listing, for review (docs/moderation.md, "Versions"; docs/uploads.md, "marketkit
 * release"). Creates the version (or goes on with the open one of the same version string), uploads
 * its file resumably (run again after Ctrl-C or a kill and it goes on where the server stands, as
 * `marketkit upload` does), confirms it with the SHA-256 and submits it. `--dry-run` says what it
 * would do and changes nothing.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { fileResumeStore } from '../bindings/node/client/resume-store.js';
import { nodeFetch } from '../bindings/node/client/streaming-fetch.js';
import { createClient, MarketKitError } from '../client/index.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { terminalText } from './terminal-text.js';
import { barReporter, formatBytes, jsonReporter, type Reporter } from './upload-progress.js';
import { openFile, processIo, sellerDefaults, sellerSchemas, uploadExit, type UploadIo } from './upload.js';

export const releaseCommand = {
  name: 'release',
  summary: 'Release a new version of your published listing: create it, upload its file resumably, confirm with the SHA-256 and submit it for review.',
  usage: 'MARKETKIT_API_TOKEN=smcp_... marketkit release <asset-id> <file> --version 1.2.0 [--notes notes.md] [--url https://market.example] [--dry-run]',
  positionals: ['asset-id', 'file'],
  options: {
    version: { type: 'string' },
    notes: { type: 'string' },
    url: { type: 'string' },
    json: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    state: { type: 'string' },
  },
  help: [
    ['--version <version>', 'The new version string: 1 to 64 letters, digits, ".", "+", "-"; higher than every earlier one when both are semantic versions (2.0.0). Required.'],
    ['--notes <file>', 'The release notes, a Markdown file of at most 10,000 characters (default none).'],
    ['--url <url>', 'The marketplace site (env MARKETKIT_URL; default http://127.0.0.1:8787).'],
    ['--dry-run', 'Say what would be done (the listing, the open version, the file and its SHA-256) and change nothing.'],
    ['--json', 'JSON lines on stdout (progress, step, submitted, error); the default when stdout is not a terminal.'],
    ['--state <file>', 'Where uploads in progress are remembered (env MARKETKIT_UPLOAD_STATE; as marketkit upload).'],
    ['MARKETKIT_API_TOKEN', 'A developer token (smcp_...) with assets:write.'],
    ['exit codes', '0 submitted; 1 failed (run again to go on); 2 a usage error; 130 interrupted (run again to resume).'],
  ],
  schema: v.object({
    version: v.optional(v.pipe(v.string(), v.regex(/^[0-9A-Za-z.+-]{1,64}$/, 'version must be 1 to 64 characters of letters, digits, ".", "+" and "-"'))),
    notes: v.optional(v.string()),
    url: sellerSchemas.url,
    json: v.optional(v.boolean(), false),
    'dry-run': v.optional(v.boolean(), false),
    state: sellerSchemas.state,
  }),
} satisfies CommandSpec<v.GenericSchema>;

/** The SHA-256 of the file, read as a stream (a pack of gigabytes is never held in memory). */
async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function readNotes(path: string | undefined): string {
  if (path === undefined) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the notes ${path}: ${(error as Error).message}.`);
  }
}

export async function runRelease(argv: string[], env: NodeJS.ProcessEnv, print: (text: string) => void, io: UploadIo = processIo): Promise<number> {
  const parsed = parseCommand(releaseCommand, argv, sellerDefaults(env));
  if (parsed.help) {
    print(helpText(releaseCommand));
    return uploadExit.confirmed;
  }
  const { version: wanted, ...options } = parsed.values;
  if (wanted === undefined) throw new UsageError('--version is required: the new version string, such as 1.2.0.\nRun "marketkit release --help" for the options.');
  const [assetId, path] = parsed.positionals as [string, string];
  const token = env.MARKETKIT_API_TOKEN?.trim();
  if (!token) throw new UsageError('set MARKETKIT_API_TOKEN to a developer token (smcp_...) with assets:write.\nRun "marketkit release --help" for the options.');
  const notes = readNotes(options.notes);
  const source = await openFile(path);
  const json = options.json || !io.stdout.isTTY;
  const write = (text: string) => void io.stdout.write(text);
  const reporter: Reporter = json ? jsonReporter(write) : barReporter(write, () => io.stdout.columns || 80);
  const stop = new AbortController();
  let interrupted: string | null = null;
  io.onInterrupt((signal) => {
    interrupted = signal;
    stop.abort();
  });
  const client = createClient({ baseUrl: options.url, token, fetch: nodeFetch });
  const ops = client.operations;
  try {
    const sha256 = await fileDigest(path);
    const listing = await ops.getAsset({ asset_id: assetId });
    const open = listing.pending_version ?? null;
    if (open && open.version !== wanted) {
      throw new UsageError(`version ${open.version} of this listing is ${open.status}: withdraw it first (POST /api/v1/assets/${assetId}/versions/${open.id}/withdraw), or release it with --version ${open.version}.`);
    }
    if (options['dry-run']) {
      const plan = open ? `go on with version ${open.version} (${open.status}, ${open.id})` : `create version ${wanted} of "${listing.title}" (live: ${listing.version}, ${listing.status})`;
      reporter.line(`Dry run: would ${plan}, upload ${source.name} (${formatBytes(source.size)}, sha256 ${sha256}) and submit it for review. Nothing was changed.`, {
        event: 'dry_run', asset_id: assetId, version: wanted, open_version_id: open?.id ?? null, file_size: source.size, sha256,
      });
      return uploadExit.confirmed;
    }
    const version = open ? await ops.getAssetVersion({ asset_id: assetId, version_id: open.id }) : await ops.createAssetVersion({ asset_id: assetId, version: wanted, release_notes: notes });
    if (open && notes !== '' && version.release_notes !== notes && (version.status === 'draft' || version.status === 'changes_requested')) {
      await ops.updateAssetVersion({ asset_id: assetId, version_id: version.id, release_notes: notes });
    }
    reporter.line(`${open ? 'Going on with' : 'Created'} version ${version.version} (${version.id}) of listing ${assetId}.`, { event: 'step', step: open ? 'resumed_version' : 'created_version', version_id: version.id });
    if (version.status === 'pending') {
      reporter.line(`Version ${version.version} is already submitted and waiting for review.`, { event: 'submitted', version_id: version.id, status: version.status });
      return uploadExit.confirmed;
    }
    if (version.file?.sha256 !== sha256 || version.file?.file_size !== source.size) {
      let first = true;
      await client.uploadVersionFile(assetId, version.id, source, {
        signal: stop.signal,
        resumeStore: fileResumeStore(options.state),
        sha256,
        onProgress: ({ loaded, total }) => {
          if (first && loaded > 0) reporter.line(`Resuming ${source.name} at ${formatBytes(loaded)}, where the server stands.`, { event: 'resumed', offset: loaded, total });
          first = false;
          reporter.progress(loaded, total ?? source.size);
        },
      });
      reporter.line(`Confirmed ${source.name} (${formatBytes(source.size)}) as the file of version ${version.version}.\nsha256 ${sha256}`, { event: 'confirmed', version_id: version.id, file_size: source.size, sha256 });
    }
    const submitted = await ops.submitAssetVersion({ asset_id: assetId, version_id: version.id });
    reporter.line(`Submitted version ${submitted.version} for review; the live listing stays as it is until a moderator approves.`, { event: 'submitted', version_id: submitted.id, status: submitted.status });
    return uploadExit.confirmed;
  } catch (error) {
    if (interrupted) {
      reporter.line(`Stopped (${interrupted}): run the same command again to resume.`, { event: 'interrupted' });
      return uploadExit.interrupted;
    }
    if (!(error instanceof MarketKitError)) throw error;
    const message = `${error.message} (${error.code}).`;
    reporter.line(`marketkit release: ${message}`, { event: 'error', code: error.code, status: error.status, error: message });
    if (json) io.stderr(terminalText(`marketkit release: ${message}`));
    return uploadExit.failed;
  }
}
