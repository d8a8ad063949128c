import { allowed } from '../domain/asset-states.js';
import { ApiError } from '../errors.js';
import { createModeration } from '../moderation/moderation.js';
import { ForAsset } from '../schemas/asset.js';
import { SubmitResultSchema } from '../schemas/upload.js';
import { changeOwnedAsset, isPaid, requireUnrestricted } from './asset-rules.js';
import { defineOperation } from './context.js';
import { assetEvent } from '../changes/outbox-events.js';

export const submitAsset = defineOperation({
  name: 'submitAsset',
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
