import { getWebhookEndpoint, webhookEndpointView } from '../../shared/data/webhook-endpoints.ts';
import { unlessNotModified } from '../../shared/http/conditional.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** With its ETag; If-None-Match naming it answers 304. */
export const handler = httpHandler(async (req) => {
  const { endpoint, version } = await getWebhookEndpoint(req.teamId, pathId(req, 'WebhookEndpoint'));
  return unlessNotModified(req, tagged(ok(webhookEndpointView(endpoint)), 'webhook', { version }));
});
