/**
 * The webhook endpoints of the caller's account (docs/webhooks.md, "Endpoints"): our extension
 * under /api/v1/webhooks, with the scopes webhooks:read and webhooks:write. The deliveries
 * themselves are the worker's (core/webhooks/worker.ts).
 */
import { Type } from '@sinclair/typebox';
import { everyEventType } from '../domain/webhook-events.js';
import { ApiError, invalidInput } from '../errors.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../ports/storage.js';
import {
  DeleteWebhookResultSchema,
  ForDelivery,
  ForEndpoint,
  WebhookCreateBody,
  WebhookDeliveryListQuery,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookUpdateBody,
  webhookLimits,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '../schemas/webhook.js';
import { webhookUrlProblem, webhookUrlToStore } from '../webhooks/addresses.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import { Strict } from '../schemas/common.js';
import { defineOperation, nowIso, type OperationContext } from './context.js';
import { commitWithEvents } from '../changes/commit.js';
import { outboxEvent } from '../changes/outbox-events.js';

/** How long the previous secret keeps signing after a rotation. */
export const secretOverlapMs = 24 * 3_600_000;

export const disabledBySeller = 'Disabled by the seller.';

export function webhookEndpointView(record: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: record.id,
    url: record.url,
    description: record.description,
    event_types: [...record.event_types] as WebhookEndpoint['event_types'],
    enabled: record.enabled,
    disabled_reason: record.disabled_reason,
    disabled_at: record.disabled_at,
    previous_secret_expires_at: record.previous_secret_expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function webhookDeliveryView(record: WebhookDeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    endpoint_id: record.endpoint_id,
    event_id: record.event_id,
    event_type: record.event_type,
    status: record.status,
    attempts: record.attempts.map((a) => ({ at: a.at, status_code: a.status_code, error: a.error, latency_ms: a.latency_ms })),
    next_attempt_at: record.next_attempt_ms === null ? null : new Date(record.next_attempt_ms).toISOString(),
    redelivery_of: record.redelivery_of,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

const noEndpoint = () => new ApiError('NOT_FOUND', 'No webhook endpoint with this id.');

/** The caller's endpoint, or 404 for a missing one and another account's alike. */
async function ownedEndpoint(ctx: OperationContext, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await ctx.ports.storage.getWebhookEndpoint(ctx.caller.account.id, id);
  if (!endpoint) throw noEndpoint();
  return endpoint;
}

/** A URL this server may send to, or 400 naming `url` (docs/webhooks.md, "Safety"). */
function checkedUrl(ctx: OperationContext, url: string): string {
  const problem = webhookUrlProblem(url, ctx.settings.webhookTargets);
  if (problem) throw invalidInput('url', problem);
  return webhookUrlToStore(url);
}

/** `*` alone stands for every type; listed with others it is still every type. */
const normalizedTypes = (types: readonly string[]) => (types.includes(everyEventType) ? [everyEventType] : [...types]);

const disabledEndpoint = () => new ApiError('CONFLICT', 'The webhook endpoint is disabled: enable it first (PATCH with enabled: true).');

const NoInput = Type.Object({}, { additionalProperties: false });

export const listWebhookEndpoints = defineOperation({
  name: 'listWebhookEndpoints',
  rest: { method: 'GET', path: '/webhooks', tag: 'Webhooks' },
  summary: "List the account's webhook endpoints, newest first (never their secrets)",
  scope: 'webhooks:read',
  errors: [],
  requestClass: 'read',
  input: NoInput,
  output: WebhookEndpointListSchema,
  async run(ctx) {
    return { data: (await ctx.ports.storage.listWebhookEndpoints(ctx.caller.account.id)).map(webhookEndpointView) };
  },
});

export const createWebhookEndpoint = defineOperation({
  name: 'createWebhookEndpoint',
  rest: { method: 'POST', path: '/webhooks', status: 201, tag: 'Webhooks' },
  summary: 'Create a webhook endpoint; its signing secret is in this answer only',
  description:
    `Events of the types listed (every type by default) are POSTed to url, signed per Standard Webhooks with secret. ` +
    `At most ${webhookLimits.endpointsMax} endpoints per account (409 CONFLICT past it).`,
  scope: 'webhooks:write',
  errors: ['CONFLICT'],
  requestClass: 'write',
  input: WebhookCreateBody,
  output: WebhookEndpointWithSecretSchema,
  async run(ctx, input) {
    const now = nowIso(ctx);
    const record: WebhookEndpointRecord = {
      id: ctx.ports.ids.uuid(),
      account_id: ctx.caller.account.id,
      url: checkedUrl(ctx, input.url),
      description: input.description ?? null,
      event_types: normalizedTypes(input.event_types ?? [everyEventType]),
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      secret: newWebhookSecret(ctx.ports.ids),
      previous_secret: null,
      previous_secret_expires_at: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    if ((await ctx.ports.storage.insertWebhookEndpoint(record, webhookLimits.endpointsMax)) === 'limit') {
      throw new ApiError('CONFLICT', `An account has at most ${webhookLimits.endpointsMax} webhook endpoints; delete one first.`);
    }
    return { ...webhookEndpointView(record), secret: record.secret };
  },
});

export const getWebhookEndpoint = defineOperation({
  name: 'getWebhookEndpoint',
  rest: { method: 'GET', path: '/webhooks/:id', params: { id: 'endpoint_id' }, tag: 'Webhooks' },
  summary: 'Get one webhook endpoint (never its secret)',
  scope: 'webhooks:read',
  errors: ['NOT_FOUND'],
  requestClass: 'read',
  input: ForEndpoint(),
  output: WebhookEndpointSchema,
  async run(ctx, input) {
    return webhookEndpointView(await ownedEndpoint(ctx, input.endpoint_id));
  },
});

export const updateWebhookEndpoint = defineOperation({
  name: 'updateWebhookEndpoint',
  rest: { method: 'PATCH', path: '/webhooks/:id', params: { id: 'endpoint_id' }, tag: 'Webhooks' },
  summary: 'Change the url, event types or description of a webhook endpoint, or disable or enable it',
  description: 'enabled: false disables it (its queued deliveries fail, and it gets no new events); enabled: true enables it again.',
  scope: 'webhooks:write',
  errors: ['NOT_FOUND'],
  requestClass: 'write',
  // The endpoint's id and at least one field.
  input: Strict(ForEndpoint(WebhookUpdateBody).properties, { minProperties: 2 }),
  output: WebhookEndpointSchema,
  async run(ctx, input) {
    const { endpoint_id: id, ...body } = input;
    const url = body.url === undefined ? undefined : checkedUrl(ctx, body.url);
    const at = nowIso(ctx);
    const current = await ownedEndpoint(ctx, id);
    const toggled = body.enabled !== undefined && body.enabled !== current.enabled;
    const updated = await ctx.ports.storage.updateWebhookEndpoint(ctx.caller.account.id, id, {
      ...(url !== undefined ? { url } : {}),
      ...(body.event_types !== undefined ? { event_types: normalizedTypes(body.event_types) } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(toggled ? { enabled: body.enabled!, disabled_reason: body.enabled ? null : disabledBySeller, disabled_at: body.enabled ? null : at } : {}),
      updated_at: at,
    });
    if (!updated) throw noEndpoint();
    return webhookEndpointView(updated);
  },
});

export const deleteWebhookEndpoint = defineOperation({
  name: 'deleteWebhookEndpoint',
  rest: { method: 'DELETE', path: '/webhooks/:id', params: { id: 'endpoint_id' }, tag: 'Webhooks' },
  summary: 'Delete a webhook endpoint with its delivery log',
  scope: 'webhooks:write',
  errors: ['NOT_FOUND'],
  requestClass: 'write',
  input: ForEndpoint(),
  output: DeleteWebhookResultSchema,
  async run(ctx, input) {
    if (!(await ctx.ports.storage.deleteWebhookEndpoint(ctx.caller.account.id, input.endpoint_id))) throw noEndpoint();
    return { success: true as const, id: input.endpoint_id };
  },
});

export const rotateWebhookSecret = defineOperation({
  name: 'rotateWebhookSecret',
  rest: { method: 'POST', path: '/webhooks/:id/rotate-secret', params: { id: 'endpoint_id' }, tag: 'Webhooks' },
  summary: 'Give a webhook endpoint a new signing secret; the old one keeps signing beside it for 24 hours',
  description: 'The new secret is in this answer only. Until previous_secret_expires_at every delivery carries two signatures, one per secret.',
  scope: 'webhooks:write',
  errors: ['NOT_FOUND'],
  requestClass: 'write',
  input: ForEndpoint(),
  output: WebhookEndpointWithSecretSchema,
  async run(ctx, input) {
    const secret = newWebhookSecret(ctx.ports.ids);
    const now = ctx.ports.clock.now();
    const rotated = await ctx.ports.storage.rotateWebhookSecret(ctx.caller.account.id, input.endpoint_id, secret, new Date(now + secretOverlapMs).toISOString(), new Date(now).toISOString());
    if (!rotated) throw noEndpoint();
    return { ...webhookEndpointView(rotated), secret };
  },
});

export const sendWebhookTest = defineOperation({
  name: 'sendWebhookTest',
  rest: { method: 'POST', path: '/webhooks/:id/test', params: { id: 'endpoint_id' }, status: 202, tag: 'Webhooks' },
  summary: 'Queue a webhook.test event to this endpoint only',
  description: 'The answer is the queued delivery; its attempts show up in the endpoint’s deliveries.',
  scope: 'webhooks:write',
  errors: ['NOT_FOUND', 'CONFLICT'],
  requestClass: 'write',
  input: ForEndpoint(),
  output: WebhookDeliverySchema,
  async run(ctx, input) {
    const endpoint = await ownedEndpoint(ctx, input.endpoint_id);
    if (!endpoint.enabled) throw disabledEndpoint();
    const test = outboxEvent(ctx.ports.ids, 'webhook.test', endpoint.account_id, endpoint.id, nowIso(ctx), {
      endpoint_id: endpoint.id,
      message: 'A test event from MarketKit: this endpoint is reachable, and verifies what it receives with its secret.',
    });
    const [queued] = await commitWithEvents(ctx.ports, [test], ([event]) => ctx.ports.storage.insertWebhookEvent(event!, endpoint.id), (deliveries) => deliveries.length > 0);
    // Disabled or deleted since it was read.
    if (!queued) throw disabledEndpoint();
    return webhookDeliveryView(queued);
  },
});

export const listWebhookDeliveries = defineOperation({
  name: 'listWebhookDeliveries',
  rest: { method: 'GET', path: '/webhooks/:id/deliveries', params: { id: 'endpoint_id' }, query: true, tag: 'Webhooks' },
  summary: "List a webhook endpoint's deliveries, newest first: status, attempts, response codes, latency, next retry",
  scope: 'webhooks:read',
  errors: ['NOT_FOUND'],
  requestClass: 'read',
  input: WebhookDeliveryListQuery,
  output: WebhookDeliveryListSchema,
  async run(ctx, input) {
    const endpoint = await ownedEndpoint(ctx, input.endpoint_id);
    const limit = input.limit ?? webhookLimits.pageDefault;
    const offset = input.offset ?? 0;
    const { items, total } = await ctx.ports.storage.listWebhookDeliveries({
      accountId: endpoint.account_id,
      endpointId: endpoint.id,
      ...(input.status ? { statuses: [input.status] } : {}),
      limit,
      offset,
    });
    return { data: items.map(webhookDeliveryView), pagination: { limit, offset, total, has_more: offset + items.length < total } };
  },
});

export const redeliverWebhook = defineOperation({
  name: 'redeliverWebhook',
  rest: {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:delivery_id/redeliver',
    params: { id: 'endpoint_id', delivery_id: 'delivery_id' },
    status: 202,
    tag: 'Webhooks',
  },
  summary: "Deliver a delivery's event again, as a new delivery to the same endpoint",
  description: 'The new delivery has the same event (the same webhook-id) and a full retry schedule of its own.',
  scope: 'webhooks:write',
  errors: ['NOT_FOUND', 'CONFLICT'],
  requestClass: 'write',
  input: ForDelivery,
  output: WebhookDeliverySchema,
  async run(ctx, input) {
    const accountId = ctx.caller.account.id;
    const original = await ctx.ports.storage.getWebhookDelivery(accountId, input.delivery_id);
    if (!original || original.endpoint_id !== input.endpoint_id) throw new ApiError('NOT_FOUND', 'No delivery with this id at this endpoint.');
    const result = await ctx.ports.storage.redeliverWebhook(accountId, original.id, ctx.ports.ids.uuid(), ctx.ports.clock.now(), nowIso(ctx));
    if (result.outcome === 'missing') throw new ApiError('NOT_FOUND', 'No delivery with this id at this endpoint.');
    if (result.outcome === 'disabled') throw disabledEndpoint();
    // Due now: this process's worker sends it rather than at its next poll (no new event: nothing else to hear).
    ctx.ports.nudgeDeliveries?.();
    return webhookDeliveryView(result.delivery);
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const webhookOperations = [listWebhookEndpoints, createWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint, rotateWebhookSecret, sendWebhookTest, listWebhookDeliveries, redeliverWebhook];
