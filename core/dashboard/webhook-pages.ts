/**
 * The seller's webhook endpoints (docs/dashboard.md, "Webhooks"): the list and New endpoint, the
 * signing secret shown once, an endpoint's page with its deliveries log (offset pages, as the
 * operation pages), redeliver, enable and disable, a test event, a new secret, edit and delete.
 * Every read and change is the operation REST runs under /api/v1/webhooks (listWebhookEndpoints,
 * createWebhookEndpoint, getWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint,
 * rotateWebhookSecret, sendWebhookTest, listWebhookDeliveries, redeliverWebhook), through
 * runOperation with the session's context. A refusal of a form is the page again with the
 * operation's message and what was typed; another seller's endpoint is the error page's 404.
 */
import { everyEventType, webhookEventTypeNames } from '../domain/webhook-events.js';
import { isApiError, statusOf } from '../errors.js';
import type { AnyOperation, OperationContext } from '../operations/context.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhookEndpoint,
} from '../operations/webhooks.js';
import { runOperation } from '../pipeline/run-operation.js';
import type { CoreResponse } from '../pipeline/request.js';
import type { WebhookEndpoint } from '../schemas/webhook.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute, SignedInRequest } from './routes.js';
import { doneNotes, endpointPage, secretPage, webhooksPage, type DeliveryPage, type DoneNote, type EndpointFields } from './webhook-views.js';

/** Deliveries on a page of an endpoint's log. */
const pageSize = 25;

async function run<T>(ctx: OperationContext, operation: AnyOperation, input: Record<string, unknown>): Promise<T> {
  return (await runOperation(ctx, operation, input)).value as T;
}

const knownTypes: readonly string[] = [everyEventType, ...webhookEventTypeNames];

/** The form as typed: the URL trimmed, the boxes ticked that name an event type. */
function fieldsFrom(form: URLSearchParams): EndpointFields {
  return {
    url: (form.get('url') ?? '').trim(),
    description: form.get('description') ?? '',
    event_types: form.getAll('event_types').filter((type) => knownTypes.includes(type)),
  };
}

const fieldsOf = (endpoint: WebhookEndpoint): EndpointFields => ({ url: endpoint.url, description: endpoint.description ?? '', event_types: [...endpoint.event_types] });

/** createWebhookEndpoint's input: an empty description is left out; no box ticked is sent as none, which the operation refuses, naming event_types. */
const createInput = (fields: EndpointFields) => ({ url: fields.url, ...(fields.description !== '' ? { description: fields.description } : {}), event_types: fields.event_types });

/** updateWebhookEndpoint's changes: only the fields that differ from the endpoint, as a PATCH sends them; empty when nothing changed. */
function updateInput(fields: EndpointFields, current: WebhookEndpoint): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (fields.url !== current.url) changes.url = fields.url;
  if (fields.description !== (current.description ?? '')) changes.description = fields.description === '' ? null : fields.description;
  if ([...fields.event_types].sort().join('\n') !== [...current.event_types].sort().join('\n')) changes.event_types = fields.event_types;
  return changes;
}

/** The offset of the log's page, from the query: a whole number, or the first page. */
function offsetOf(query: URLSearchParams): number {
  const offset = Number(query.get('offset') ?? 0);
  return Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
}

/** An endpoint's page, read through the operations (a missing endpoint, or another seller's, is their 404). */
async function endpointView(ctx: OperationContext, id: string, shown: { offset?: number; fields?: EndpointFields; note?: DoneNote | null; message?: string } = {}) {
  const endpoint = await run<WebhookEndpoint>(ctx, getWebhookEndpoint, { endpoint_id: id });
  const deliveries = await run<DeliveryPage>(ctx, listWebhookDeliveries, { endpoint_id: id, limit: pageSize, offset: shown.offset ?? 0 });
  return { endpoint, deliveries, fields: shown.fields ?? fieldsOf(endpoint), note: shown.note ?? null, message: shown.message ?? null };
}

/**
 * Runs an action on an endpoint and goes back to its page saying so (POST-redirect-GET); a refusal
 * is the endpoint's page again with the operation's message. A missing endpoint is thrown on: the
 * error page's 404, never another seller's data.
 */
async function actOn(request: SignedInRequest, note: DoneNote, act: () => Promise<unknown>, fields?: EndpointFields): Promise<CoreResponse> {
  const { ctx, place, params } = request;
  try {
    await act();
  } catch (error) {
    // Not dropped: a refusal is shown on the page; anything else (and a 404) goes on to the error page.
    if (!isApiError(error) || error.code === 'NOT_FOUND') throw error;
    return page(statusOf(error.code), endpointPage(place, await endpointView(ctx, params.id!, { message: error.message, ...(fields ? { fields } : {}) })));
  }
  return redirect(`${place.base}/webhooks/${encodeURIComponent(params.id!)}?done=${note}`);
}

const listOf = async (ctx: OperationContext) => (await run<{ data: WebhookEndpoint[] }>(ctx, listWebhookEndpoints, {})).data;

export const webhookRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/webhooks',
    role: 'account',
    async handle({ ctx, place }) {
      return page(200, webhooksPage(place, await listOf(ctx)));
    },
  },
  {
    method: 'POST',
    path: '/webhooks',
    role: 'account',
    async handle({ ctx, place, form }) {
      const fields = fieldsFrom(form);
      let created: WebhookEndpoint & { secret: string };
      try {
        created = await run<WebhookEndpoint & { secret: string }>(ctx, createWebhookEndpoint, createInput(fields));
      } catch (error) {
        // Not dropped: a refusal is the form again, with its message and what was typed.
        if (!isApiError(error)) throw error;
        return page(statusOf(error.code), webhooksPage(place, await listOf(ctx), fields, error.message));
      }
      return page(200, secretPage(place, created, created.secret, false));
    },
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    role: 'account',
    async handle({ ctx, place, params, query }) {
      const done = query.get('done');
      const note = done !== null && Object.hasOwn(doneNotes, done) ? (done as DoneNote) : null;
      return page(200, endpointPage(place, await endpointView(ctx, params.id!, { offset: offsetOf(query), note })));
    },
  },
  {
    method: 'POST',
    path: '/webhooks/{id}',
    role: 'account',
    async handle(request) {
      const { ctx, params, form, place } = request;
      const current = await run<WebhookEndpoint>(ctx, getWebhookEndpoint, { endpoint_id: params.id! });
      const fields = fieldsFrom(form);
      const changes = updateInput(fields, current);
      if (Object.keys(changes).length === 0) return redirect(`${place.base}/webhooks/${current.id}?done=unchanged`);
      return actOn(request, 'saved', () => run(ctx, updateWebhookEndpoint, { endpoint_id: current.id, ...changes }), fields);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/enable',
    role: 'account',
    handle: (request) => actOn(request, 'enabled', () => run(request.ctx, updateWebhookEndpoint, { endpoint_id: request.params.id!, enabled: true })),
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/disable',
    role: 'account',
    handle: (request) => actOn(request, 'disabled', () => run(request.ctx, updateWebhookEndpoint, { endpoint_id: request.params.id!, enabled: false })),
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    role: 'account',
    handle: (request) => actOn(request, 'tested', () => run(request.ctx, sendWebhookTest, { endpoint_id: request.params.id! })),
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    role: 'account',
    async handle({ ctx, place, params }) {
      const rotated = await run<WebhookEndpoint & { secret: string }>(ctx, rotateWebhookSecret, { endpoint_id: params.id! });
      return page(200, secretPage(place, rotated, rotated.secret, true));
    },
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/delete',
    role: 'account',
    async handle({ ctx, place, params }) {
      await run(ctx, deleteWebhookEndpoint, { endpoint_id: params.id! });
      return redirect(`${place.base}/webhooks`);
    },
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{delivery}/redeliver',
    role: 'account',
    handle: (request) => actOn(request, 'redelivered', () => run(request.ctx, redeliverWebhook, { endpoint_id: request.params.id!, delivery_id: request.params.delivery! })),
  },
];
