/**
 * The hosted tools: the one table of tool name -> operation, with what an assistant reads about
 * each. A tool's arguments are its operation's input as they are (a listing is `asset_id` on
 * both), so the schemas, checks, scopes and error codes are REST's, through `runOperation`. The
 * local process (`marketkit mcp`) offers the same rows, sent over REST by their operation's route.
 */
import { Type } from '@sinclair/typebox';
import { OperationResult, runOperation } from '../pipeline/run-operation.js';
import { checkHealth } from '../operations/health.js';
import * as op from '../operations/index.js';
import type { AnyOperation, OperationContext } from '../operations/context.js';
import { Strict, Uuid } from '../schemas/common.js';
import { HealthSchema } from '../schemas/health.js';
import { validate } from '../validation.js';
import { adds, reads, replaces, toolDefinition, withRetryKey, type Tool, type ToolDefinition, type ToolText } from '../pipeline/tool.js';

/** A tool of the hosted endpoint runs in process, for the caller its request authenticated. */
type HostedTool = Tool<OperationContext, OperationResult>;

/** A write tool's idempotency_key is its REST call's Idempotency-Key (core/pipeline/idempotency.ts). */
function operationTool(operation: AnyOperation, text: ToolText): HostedTool {
  return withRetryKey({
    ...text,
    input: operation.input,
    output: operation.output,
    operation,
    run: (args, ctx) => {
      if (!('idempotency_key' in args)) return runOperation(ctx, operation, args);
      const { idempotency_key: key, ...input } = args;
      return runOperation(ctx, operation, input, { key, surface: 'mcp' });
    },
  });
}

const NoArguments = Type.Object({}, { additionalProperties: false });

/** Not an operation (so rate-limited as a read): any valid token may call it, whatever its scopes. */
const healthCheck: HostedTool = {
  name: 'health_check',
  title: 'Check the connection',
  description:
    'Confirms that the token is accepted and that the marketplace database and file store answer. Returns ok, the ' +
    "caller's user_id and each check. Call it first when setting up, or when other tools fail unexpectedly.",
  annotations: reads,
  input: NoArguments,
  output: Strict({
    ok: Type.Boolean({ description: 'True when every check passed.' }),
    user_id: Uuid('The account the token belongs to.'),
    checks: HealthSchema.properties.checks,
  }),
  async run(args, ctx) {
    validate(NoArguments, args);
    const report = await checkHealth(ctx.ports, ctx.settings);
    return new OperationResult({ ok: report.status === 'ok', user_id: ctx.caller.account.id, checks: report.checks });
  },
};

/** The 13 hosted tools, in the order an assistant meets them. */
export const hostedTools: readonly HostedTool[] = [
  healthCheck,
  operationTool(op.getProfile, {
    name: 'get_my_profile',
    title: 'Read my profile',
    description:
      "The profile of the token's account: username, seller_status (only approved sellers can create listings), " +
      'is_restricted, payouts_connected (a paid listing needs it before submit_asset) and subscription_tier.',
    annotations: reads,
  }),
  operationTool(op.listCategories, {
    name: 'list_categories',
    title: 'List categories',
    description: 'The categories a listing can be filed under. Pass a category id as category_id to create_asset or update_asset.',
    annotations: reads,
  }),
  operationTool(op.listAssets, {
    name: 'list_my_assets',
    title: 'List my listings',
    description:
      'Your listings, newest first, a page at a time (limit 1 to 100, default 50; offset from 0; pagination.has_more says ' +
      'whether another page follows). Filter with status: draft, pending, scheduled, published, rejected, changes_requested or archived.',
    annotations: reads,
  }),
  operationTool(op.getAsset, {
    name: 'get_asset',
    title: 'Get a listing',
    description: 'One of your listings by asset_id, with its images, its category and its confirmed file (null until confirm_asset_file).',
    annotations: reads,
  }),
  operationTool(op.createAsset, {
    name: 'create_asset',
    title: 'Create a listing',
    description:
      'Creates a listing in draft. title (3 to 200 characters) and slug (lowercase letters, digits and hyphens, unique across ' +
      'the marketplace) are required; pricing_type defaults to free. Returns the listing: pass its id as asset_id to the next ' +
      'step, get_asset_upload_url. Only approved sellers can create listings.',
    annotations: adds,
  }),
  operationTool(op.updateAsset, {
    name: 'update_asset',
    title: 'Update a listing',
    description:
      "Changes a listing's title, slug, description, pricing, visibility, tags, category or schedule: send asset_id and only " +
      'the fields to change. Allowed in draft, rejected, changes_requested and published; refused (INVALID_STATUS) while pending, scheduled or archived.',
    annotations: replaces,
  }),
  operationTool(op.deleteAsset, {
    name: 'delete_asset',
    title: 'Delete a draft listing',
    description: 'Deletes a draft listing for good, with its file and images. Only drafts can be deleted (NOT_DRAFT otherwise). Cannot be undone.',
    annotations: replaces,
  }),
  operationTool(op.createAssetUploadUrl, {
    name: 'get_asset_upload_url',
    title: 'Get a file upload URL',
    description:
      "Upload step 1 of 2 for the listing's file. Returns signed_url and storage_path. The bytes then go by HTTP PUT to " +
      'signed_url, outside MCP, with their Content-Type and without an Authorization header, before expires_at. Then call ' +
      'confirm_asset_file with storage_path and the exact byte size. Refused on a published listing (LISTING_IS_LIVE).',
    annotations: adds,
  }),
  operationTool(op.confirmAssetFile, {
    name: 'confirm_asset_file',
    title: 'Confirm the uploaded file',
    description:
      "Upload step 2 of 2: after the PUT, makes the uploaded file the listing's file. storage_path is the one " +
      'get_asset_upload_url returned; file_size is the exact number of bytes uploaded. A new file replaces the previous one, which is deleted.',
    annotations: replaces,
  }),
  operationTool(op.createImageUploadUrl, {
    name: 'get_image_upload_url',
    title: 'Get an image upload URL',
    description:
      'Image step 1 of 2: a signed URL for a gallery image (filename ending in .webp, .png, .jpg or .jpeg; WebP is the format ' +
      'served). PUT the image bytes to signed_url, outside MCP, without an Authorization header; then call confirm_image with public_url.',
    annotations: adds,
  }),
  operationTool(op.confirmAssetImage, {
    name: 'confirm_image',
    title: 'Confirm an uploaded image',
    description:
      'Image step 2 of 2: after the PUT, adds the image to the listing by the public_url get_image_upload_url returned. ' +
      "The bytes must really be WebP, PNG or JPEG. The first image becomes the listing's primary image; at most 10 images.",
    annotations: adds,
  }),
  operationTool(op.submitAsset, {
    name: 'submit_asset',
    title: 'Submit for review',
    description:
      'Sends the listing to moderation. Needs status draft, rejected or changes_requested (INVALID_STATUS), a confirmed file ' +
      '(NO_FILE) and, for a paid listing, payouts connected (PAYOUTS_REQUIRED). The listing becomes pending, or scheduled when ' +
      'scheduled_publish_at is in the future; a moderator then publishes it or asks for changes.',
    annotations: adds,
  }),
];

export const toolsByName: ReadonlyMap<string, HostedTool> = new Map(hostedTools.map((tool) => [tool.name, tool]));

/** The tools as tools/list shows them, built once. */
export const toolDefinitions: readonly ToolDefinition[] = hostedTools.map(toolDefinition);
