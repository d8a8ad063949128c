/** The wire shapes of webhook endpoints and their deliveries (docs/webhooks.md), our extension under /api/v1/webhooks. */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { everyEventType, webhookEventTypeNames } from '../domain/webhook-events.js';
import { maxWebhookUrlLength } from '../webhooks/addresses.js';
import { Nullable, Offset, Strict, StringEnum, Timestamp, Uuid } from './common.js';
import { SingleLine } from './text.js';
import { PaginationSchema } from './asset.js';

export const webhookLimits = { endpointsMax: 10, descriptionMax: 500, pageMax: 100, pageDefault: 50 } as const;

export const WebhookEventTypeSchema = StringEnum([everyEventType, ...webhookEventTypeNames] as const, {
  description: 'An event type (docs/webhooks.md), or * for every type.',
});

const writable = {
  url: Type.String({
    minLength: 1,
    maxLength: maxWebhookUrlLength,
    description: 'Where the events are POSTed: https (http only where the operator allows it); not a loopback, private, link-local or metadata address.',
    'x-rule': `an https URL of at most ${maxWebhookUrlLength} characters`,
  }),
  event_types: Type.Array(WebhookEventTypeSchema, {
    minItems: 1,
    maxItems: webhookEventTypeNames.length + 1,
    uniqueItems: true,
    description: 'The event types this endpoint gets; ["*"] (the default) for every type.',
  }),
  description: Nullable(SingleLine({ maxLength: webhookLimits.descriptionMax })),
};

const { url, ...optionalFields } = writable;

export const WebhookCreateBody = Strict({ url, ...Type.Partial(Type.Object(optionalFields)).properties });
export type WebhookCreateBody = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Strict(
  { ...Type.Partial(Type.Object(writable)).properties, enabled: Type.Optional(Type.Boolean({ description: 'false disables the endpoint (its queued deliveries fail); true enables it again.' })) },
  { minProperties: 1 },
);
export type WebhookUpdateBody = Static<typeof WebhookUpdateBody>;

export const EndpointId = Type.String({ description: 'The webhook endpoint id (a UUID).' });

/** An operation's input: the endpoint it addresses and the fields of `body`, if any. */
export const ForEndpoint = <P extends TProperties = {}>(body?: TObject<P>) => Strict({ endpoint_id: EndpointId, ...(body?.properties as P) });

const endpointFields = {
  id: Uuid(),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_types: Type.Array(WebhookEventTypeSchema),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String({ description: 'Why it is disabled: by the seller, or after failing without a break for about three days.' })),
  disabled_at: Nullable(Timestamp()),
  previous_secret_expires_at: Nullable(Timestamp('After a rotation, until when the previous secret signs beside the new one.')),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

export const WebhookEndpointSchema = Strict(endpointFields, { $id: 'WebhookEndpoint' });
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = Strict(
  {
    ...endpointFields,
    secret: Type.Union([Type.String(), Type.Null()], {
      description:
        'The signing secret (whsec_ and base64), shown this once: keep it. Null in a replay of the request (Idempotent-Replayed): secrets are not kept; rotate-secret gives a new one.',
    }),
  },
  { $id: 'WebhookEndpointWithSecret' },
);

export const WebhookEndpointListSchema = Strict({ data: Type.Array(WebhookEndpointSchema) }, { $id: 'WebhookEndpointList' });

export const DeleteWebhookResultSchema = Strict({ success: Type.Literal(true), id: Uuid() }, { $id: 'DeleteWebhookResult' });

export const WebhookDeliveryStatusSchema = StringEnum(['pending', 'retrying', 'succeeded', 'failed'] as const, {
  description: 'pending: not tried yet; retrying: failed, tried again at next_attempt_at; succeeded: answered 2xx; failed: no attempts left, or the endpoint was disabled.',
});

export const WebhookAttemptSchema = Strict({
  at: Timestamp(),
  status_code: Nullable(Type.Integer({ description: 'The HTTP status the endpoint answered; null when it did not answer.' })),
  error: Nullable(Type.String({ description: 'Why no answer counted: timeout, a refused address, a network error.' })),
  latency_ms: Type.Integer(),
});

export const WebhookDeliverySchema = Strict(
  {
    id: Uuid(),
    endpoint_id: Uuid(),
    event_id: Uuid('The event’s id: the webhook-id header, the same in every attempt and redelivery.'),
    event_type: Type.String(),
    status: WebhookDeliveryStatusSchema,
    attempts: Type.Array(WebhookAttemptSchema, { description: 'Every attempt, oldest first.' }),
    next_attempt_at: Nullable(Timestamp('When the next attempt is due; null once succeeded or failed.')),
    redelivery_of: Nullable(Uuid()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListQuery = ForEndpoint(
  Strict({
    status: Type.Optional(WebhookDeliveryStatusSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: webhookLimits.pageMax, description: '1 to 100, default 50.' })),
    offset: Type.Optional(Offset()),
  }),
);

export const WebhookDeliveryListSchema = Strict({ data: Type.Array(WebhookDeliverySchema), pagination: PaginationSchema }, { $id: 'WebhookDeliveryList' });

export const ForDelivery = Strict({ endpoint_id: EndpointId, delivery_id: Type.String({ description: 'The delivery id (a UUID).' }) });
