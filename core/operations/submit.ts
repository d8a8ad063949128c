import { allowed } from '../domain/asset-states.js';
import { ApiError } from '../errors.js';
import { createModeration } from '../moderation/moderation.js';
import { ForAsset } from '../schemas/asset.js';
import { SubmitResultSchema } from '../schemas/upload.js';
import { changeOwnedAsset, isPaid, requireUnrestricted } from './asset-rules.js';
import { defineOperation } from './context.js';
import { addsOnce } from './declaration.js';
import { assetEvent } from '../changes/outbox-events.js';

export const submitAsset = defineOperation({
  name: 'submitAsset',
  rest: { method: 'POST', path: '/assets/:id/submit', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'submit_asset',
    title: 'Submit for review',
    description:
      'Sends the listing to moderation. Needs status draft, rejected or changes_requested (INVALID_STATUS), a confirmed file ' +
      '(NO_FILE) and, for a paid listing, payouts connected (PAYOUTS_REQUIRED). The listing becomes pending, or scheduled when ' +
      'scheduled_publish_at is in the future; a moderator then publishes it or asks for changes.',
    annotations: addsOnce,
  },
  summary: 'Submit a listing for moderation review',
  description:
    'Needs status draft, rejected or changes_requested (409 INVALID_STATUS), a confirmed file (422 NO_FILE) and, for a paid ' +
    'listing, connected payouts (409 PAYOUTS_REQUIRED). The listing becomes pending, or scheduled when scheduled_publish_at is in the future; ' +
    'a marketplace that approves automatically publishes it at once (published).',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'NO_FILE', 'PAYOUTS_REQUIRED', 'CONFLICT', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForAsset(),
  output: SubmitResultSchema,
  async run(ctx, input) {
    const { asset } = await changeOwnedAsset(ctx, input.asset_id, (current) => {
      const scheduled = current.scheduled_publish_at !== null && Date.parse(current.scheduled_publish_at) > ctx.ports.clock.now();
      const status = allowed(current, scheduled ? 'submitScheduled' : 'submit');
      if (!current.file) throw new ApiError('NO_FILE');
      if (isPaid(current) && !ctx.caller.account.payouts_connected) throw new ApiError('PAYOUTS_REQUIRED');
      return { status };
    }, (before, after, at) => [assetEvent(ctx.ports.ids, after.status === 'scheduled' ? 'asset.scheduled' : 'asset.submitted', after, before.status, at)]);
    const after = await createModeration(ctx.ports, { onSubmit: ctx.settings.onSubmit }).afterSubmit(asset);
    return {
      success: true as const,
      id: after.id,
      status: after.status as 'pending' | 'scheduled' | 'published',
      scheduled_publish_at: after.scheduled_publish_at,
    };
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const submitOperations = [submitAsset];
