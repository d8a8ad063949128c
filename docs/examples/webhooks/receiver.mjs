// A receiver of MarketKit's webhooks: it verifies every delivery with the Standard Webhooks
// library (npm install standardwebhooks), handles each event once, and ignores a change older
// than one it already applied.
//
//   WEBHOOK_SECRET=whsec_... PORT=4000 node receiver.mjs
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

// The secret POST /api/v1/webhooks answered once (during a rotation, either secret verifies).
if (!process.env.WEBHOOK_SECRET?.startsWith('whsec_')) throw new Error('Set WEBHOOK_SECRET to the whsec_... secret of your endpoint.');
const webhook = new Webhook(process.env.WEBHOOK_SECRET);
// In production both live in your database, next to what the events change.
const handled = new Set(); // webhook-ids done: a retry or redelivery of one is answered, not redone
const lastSequence = new Map(); // listing id -> sequence of the last event applied to it

function apply(event) {
  const listing = event.data.asset?.id;
  if (listing) {
    // Deliveries may arrive out of order (a retry comes after later events): keep the newest.
    if ((lastSequence.get(listing) ?? -1) > event.sequence) return;
    lastSequence.set(listing, event.sequence);
  }
  console.log(JSON.stringify({ id: event.id, type: event.type, listing, status: event.data.asset?.status ?? null }));
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    // The body exactly as received: the signature covers these bytes.
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(body, request.headers); // signature, and a timestamp within 5 minutes
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(`not verified: ${error.message}`);
      return;
    }
    if (!handled.has(event.id)) {
      apply(event);
      handled.add(event.id);
    }
    // Any 2xx within the timeout (10 s) counts as delivered; anything else is retried.
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  console.log(`receiving on http://127.0.0.1:${server.address().port}`);
});
