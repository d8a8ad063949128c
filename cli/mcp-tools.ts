/**
 * The tools of the local MCP process (`marketkit mcp`), one table of tools of the one type
 * (core/pipeline/tool.ts). They run on this computer and reach the marketplace through the typed REST
 * client: the hosted endpoint's listing tools (same names, descriptions and schemas, from
 * core/mcp/tools.ts, each sent as its operation's row of core/http/routes.ts), the whole-upload
 * tools that read a local file, seller profile and stats, and Creator Studio's tools (from
 * core/studio/tools.ts). With a service key instead, the admin surface's actions
 * (core/admin/actions.ts).
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { Type } from '@sinclair/typebox';
import { fileSource } from '../bindings/node/client/file-source.js';
import type { MarketKitClient, UploadOptions } from '../client/index.js';
import { ApiError } from '../core/errors.js';
import { adminActions } from '../core/admin/actions.js';
import { adminPrefix } from '../core/admin/surface.js';
import { adds, reads, replaces, restTool, routeTool, withRetryKey, type Tool } from '../core/pipeline/tool.js';
import { routeOf } from '../core/http/routes.js';
import { hostedTools } from '../core/mcp/tools.js';
import { developerOperations } from '../core/operations/index.js';
import { AssetId, AssetStatusSchema } from '../core/schemas/asset.js';
import { Strict } from '../core/schemas/common.js';
import { ConfirmFileResultSchema, ConfirmImageResultSchema, Filename } from '../core/schemas/upload.js';
import { studioTools } from '../core/studio/tools.js';
import { validate } from '../core/validation.js';

export interface LocalContext {
  client: MarketKitClient;
  /** The account the credential speaks for. */
  accountId(): Promise<string>;
  /** Reports upload progress to the caller when its call carried a progressToken. */
  progress(loaded: number, total: number | null, message: string): void;
  /** Where relative file paths start. */
  cwd: string;
  /** Aborted when the client cancels the call: an upload stops. */
  signal: AbortSignal;
  /** How upload_asset_file goes resumable: the resume store (a state file) and the size from which (docs/uploads.md). */
  resumable?: Pick<UploadOptions, 'resumeStore' | 'resumableThreshold'>;
}

/** A tool of this process (core/pipeline/tool.ts), run with arguments already validated against its `input`. */
type LocalTool = Tool<LocalContext>;

/**
 * The tool every operation declares, sent as its REST request (hosted and local-only alike); health_check,
 * which is no operation, also asks GET /health.
 */
const listingTools: LocalTool[] = [
  ...hostedTools.map((tool): LocalTool => {
    if (tool.operation) return routeTool(routeOf(tool.operation), tool);
    if (tool.name !== 'health_check') throw new Error(`marketkit mcp: the hosted tool ${tool.name} is no operation; say in cli/mcp-tools.ts how it runs here.`);
    return {
      ...tool,
      description: `${tool.description} Here it also confirms that this process reaches the marketplace at MARKETKIT_URL.`,
      async run(_args, context) {
        const report = await context.client.health();
        return { ok: report.status === 'ok', user_id: await context.accountId(), checks: report.checks };
      },
    };
  }),
  ...developerOperations.flatMap((operation) => (operation.tool?.localOnly ? [routeTool(routeOf(operation), operation.tool)] : [])),
];

/** `~/x` and relative paths as the person who configured the process means them. */
function localPath(path: string, cwd: string): string {
  if (path === '~' || path.startsWith('~/')) return resolve(homedir(), path.slice(2));
  return resolve(cwd, path);
}

async function openLocalFile(path: string, cwd: string) {
  const full = localPath(path, cwd);
  try {
    return await fileSource(full);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (error as Error).message;
    throw new ApiError('INVALID_INPUT', `path: cannot read ${full}: ${reason}.`, { details: [{ path: 'path', message: `cannot read ${full}: ${reason}` }] });
  }
}

const UploadInput = (what: string) =>
  Strict({
    asset_id: AssetId,
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: `The ${what} on this computer: an absolute path, or relative to the directory this process runs in; ~ is the home directory.`,
    }),
    filename: Type.Optional({ ...Filename, description: 'The name the marketplace records; default the file’s own name.' }),
    content_type: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Default: from the extension (.zip application/zip, .webp image/webp, ...).' })),
  });

/**
 * An upload tool's run: the local file, streamed by the client's one-call upload (upload URL, PUT,
 * confirmation) with progress notifications, stopped when the call is cancelled.
 */
function uploadRun(upload: 'uploadFile' | 'uploadImage'): LocalTool['run'] {
  return async ({ asset_id, path, filename, content_type, idempotency_key }, context) => {
    const source = await openLocalFile(path, context.cwd);
    const name: string = filename ?? source.name;
    const onProgress: UploadOptions['onProgress'] = ({ loaded, total }) =>
      context.progress(loaded, total, total === null ? `${name}: ${loaded} bytes sent` : `${name}: ${loaded} of ${total} bytes sent`);
    return context.client[upload](asset_id, source, {
      filename: name,
      ...(content_type ? { contentType: content_type } : {}),
      ...(idempotency_key !== undefined ? { idempotencyKey: idempotency_key } : {}),
      // A large file goes up in checksummed chunks, resumed from the server's offset after a failure or a restart.
      ...(upload === 'uploadFile' ? context.resumable : {}),
      onProgress,
      signal: context.signal,
    });
  };
}

/** Each step of a keyed upload carries a key derived from the tool's (client/client.ts), so a repeated call uploads once. */
const uploadTools: LocalTool[] = [
  withRetryKey({
    name: 'upload_asset_file',
    title: 'Upload a local file as the listing file',
    description:
      "Uploads a file from this computer as the listing's file in one step: asks for the upload URL, streams the bytes " +
      '(with progress notifications when the call carries a progressToken) and confirms the file with its SHA-256. A large ' +
      'file goes up resumably: called again after a failure or a restart, it goes on from where the server stands. A new file replaces the ' +
      'previous one. Then submit_asset sends the listing to review. Refused on a published listing (LISTING_IS_LIVE).',
    annotations: replaces,
    input: UploadInput('file'),
    output: ConfirmFileResultSchema,
    run: uploadRun('uploadFile'),
  }),
  withRetryKey({
    name: 'upload_asset_image',
    title: 'Upload a local image to the gallery',
    description:
      'Uploads an image from this computer (.webp, .png, .jpg or .jpeg; WebP is the format served) to the listing’s gallery in ' +
      'one step: upload URL, streamed bytes with progress, confirm-image. The first image becomes the primary image; at most 10.',
    annotations: adds,
    input: UploadInput('image'),
    output: ConfirmImageResultSchema,
    run: uploadRun('uploadImage'),
  }),
];

const StatsSchema = Strict({
  listings: Type.Integer({ description: 'How many listings the account has.' }),
  by_status: Type.Record(Type.String(), Type.Integer(), { description: 'Listings per status.' }),
  downloads: Type.Integer({ description: 'Downloads of all listings together.' }),
  views: Type.Integer({ description: 'Views of all listings together.' }),
  top_listings: Type.Array(Strict({ id: Type.String(), title: Type.String(), status: AssetStatusSchema, download_count: Type.Integer(), view_count: Type.Integer() }), {
    description: 'Up to 5 listings with the most downloads (then views).',
  }),
});

const sellerTools: LocalTool[] = [
  {
    name: 'get_seller_stats',
    title: 'My seller stats',
    description: 'Totals over all your listings: how many per status, downloads and views, and the five most downloaded.',
    annotations: reads,
    input: Strict({}),
    output: StatsSchema,
    async run(_args, context) {
      const stats = { listings: 0, by_status: {} as Record<string, number>, downloads: 0, views: 0 };
      const all: { id: string; title: string; status: string; download_count: number; view_count: number }[] = [];
      for await (const asset of context.client.allAssets()) {
        stats.listings++;
        stats.by_status[asset.status] = (stats.by_status[asset.status] ?? 0) + 1;
        stats.downloads += asset.download_count;
        stats.views += asset.view_count;
        all.push({ id: asset.id, title: asset.title, status: asset.status, download_count: asset.download_count, view_count: asset.view_count });
      }
      all.sort((a, b) => b.download_count - a.download_count || b.view_count - a.view_count);
      return { ...stats, top_listings: all.slice(0, 5) };
    },
  },
];

/** The tools of a developer token or session JWT, in the order an assistant meets them. */
export const localTools: readonly LocalTool[] = [...listingTools, ...uploadTools, ...sellerTools, ...studioTools];

/** The admin surface's actions as tools (`admin_approve`, ...), for a service key: admin automation only. */
export const adminTools: readonly LocalTool[] = adminActions.map((action) => {
  const params = Object.fromEntries(Object.entries(action.params ?? {}).map(([name, description]) => [name, Type.String({ minLength: 1, description })]));
  const input = Strict({ ...params, ...((action.query as { properties?: object })?.properties ?? {}), ...((action.body as { properties?: object })?.properties ?? {}) });
  return restTool(
    {
      name: `admin_${action.name.replace(/-/g, '_')}`,
      title: action.summary,
      description: `${action.summary}. Admin surface: ${action.method} ${adminPrefix}${action.path}.`,
      annotations: action.method === 'GET' ? reads : { ...adds, destructiveHint: true },
      input,
      output: action.response,
    },
    { method: action.method, path: `${adminPrefix}${action.path.replace(/\{(\w+)\}/g, ':$1')}`, params: Object.fromEntries(Object.keys(params).map((name) => [name, name])) },
  );
});

/** Checks the arguments against the tool's schema, as the hosted endpoint does (INVALID_INPUT naming each field), then runs it. */
export async function runLocalTool(tool: LocalTool, args: Record<string, unknown>, context: LocalContext): Promise<unknown> {
  validate(tool.input, args);
  return tool.run(args, context);
}
