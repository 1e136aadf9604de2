import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

// The endpoint's secret, as POST /api/v1/webhook-endpoints answered it (`whsec_…`).
const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? '');
// Delivery is at least once: a retried or redelivered event has the same webhook-id. Keep what you saw.
const seen = new Set<string>();
// Events may arrive out of order: keep each resource's newest version and drop older ones.
const versions = new Map<string, number>();

createServer(async (request, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  let event: { type: string; resource: string; resource_version: number };
  try {
    // Checks the signature and that the timestamp is recent (replays are refused); throws otherwise.
    event = webhook.verify(body, request.headers as Record<string, string>) as typeof event;
  } catch {
    response.writeHead(400).end();
    return;
  }
  const id = String(request.headers['webhook-id']);
  const newest = versions.get(event.resource) ?? 0;
  if (!seen.has(id) && event.resource_version >= newest) {
    versions.set(event.resource, event.resource_version);
    console.log(`${event.type} ${event.resource} v${event.resource_version}`);
  }
  seen.add(id);
  // Answer 2xx within 5 s (do slow work after answering); a 410 would disable the endpoint.
  response.writeHead(204).end();
}).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');
