/** Checks of the webhook endpoints (our extension, docs/webhooks.md): not certified on a server that has none. */
import { ensure, expectError, expectStatus, NotCertified, uuidPattern, type Check, type CheckContext } from './check.js';

/** The endpoints route, or NotCertified when the server has no webhooks or the seller's token may not read them. */
async function requireWebhooks({ client, fixtures }: CheckContext): Promise<void> {
  const listed = await client.get('/webhooks', fixtures.seller);
  if (listed.status === 404) throw new NotCertified('the server offers no webhooks (an extension: docs/webhooks.md)');
  if (listed.status === 403) throw new NotCertified("the seller's token lacks webhooks:read and webhooks:write");
  expectStatus('WEBHOOK-ENDPOINT-SECRET', listed, 200);
}

export const webhookChecks: Check[] = [
  {
    id: 'rest.webhooks.endpoints',
    title: 'webhook endpoints: the secret once, safe URLs, scopes, a test delivery',
    requirements: ['WEBHOOK-ENDPOINT-SECRET', 'WEBHOOK-URL-SAFETY', 'WEBHOOK-SCOPES', 'WEBHOOK-TEST-DELIVERY'],
    needs: ['readOnly'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      await requireWebhooks(ctx);
      for (const url of ['http://hooks.conformance.example/in', 'https://127.0.0.1/in', 'https://10.0.0.1/in', 'https://169.254.169.254/latest/meta-data']) {
        expectError('WEBHOOK-URL-SAFETY', await client.post('/webhooks', fixtures.seller, { url }), 400, 'INVALID_INPUT', 'url');
      }
      expectError('WEBHOOK-SCOPES', await client.get('/webhooks', fixtures.readOnly), 403, 'FORBIDDEN');
      const created = await client.post('/webhooks', fixtures.seller, { url: `https://hooks.conformance.example/${ctx.slug('hook')}`, description: 'conformance' });
      if (created.status === 409) throw new NotCertified('the seller has as many webhook endpoints as the server allows');
      expectStatus('WEBHOOK-ENDPOINT-SECRET', created, 201);
      const { secret, ...shown } = created.body ?? {};
      ensure('WEBHOOK-ENDPOINT-SECRET', typeof secret === 'string' && /^whsec_[A-Za-z0-9+/=]{16,}$/.test(secret), 'a whsec_ secret in the answer to POST /webhooks', created);
      ensure('WEBHOOK-ENDPOINT-SECRET', uuidPattern.test(shown.id), 'the endpoint id, a UUID', created);
      try {
        const got = await client.get(`/webhooks/${shown.id}`, fixtures.seller);
        expectStatus('WEBHOOK-ENDPOINT-SECRET', got, 200);
        const listed = await client.get('/webhooks', fixtures.seller);
        for (const answer of [got, listed]) ensure('WEBHOOK-ENDPOINT-SECRET', !JSON.stringify(answer.body).includes(secret.slice(6)), 'no later answer to show the secret', answer);
        expectError('WEBHOOK-SCOPES', await client.post(`/webhooks/${shown.id}/test`, fixtures.readOnly), 403, 'FORBIDDEN');
        const queued = await client.post(`/webhooks/${shown.id}/test`, fixtures.seller);
        expectStatus('WEBHOOK-TEST-DELIVERY', queued, 202);
        ensure('WEBHOOK-TEST-DELIVERY', queued.body?.event_type === 'webhook.test' && uuidPattern.test(queued.body?.id), 'a delivery of a webhook.test event', queued);
        const deliveries = await client.get(`/webhooks/${shown.id}/deliveries`, fixtures.seller);
        expectStatus('WEBHOOK-TEST-DELIVERY', deliveries, 200);
        ensure('WEBHOOK-TEST-DELIVERY', Array.isArray(deliveries.body?.data) && deliveries.body.data.some((d: { id?: string }) => d.id === queued.body.id), 'the test delivery in the list', deliveries);
      } finally {
        await client.delete(`/webhooks/${shown.id}`, fixtures.seller);
      }
    },
  },
];
