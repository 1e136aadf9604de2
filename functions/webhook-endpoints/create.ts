import {
  createWebhookEndpoint,
  type WebhookEndpoint,
  webhookEndpointView,
} from '../../shared/data/webhook-endpoints.ts';
import { createWebhookEndpointSchema } from '../../shared/domain/webhook-input.ts';
import { created } from '../../shared/http/handler.ts';
import { idempotentHandler } from '../../shared/http/idempotency.ts';
import { tagged } from '../../shared/http/preconditions.ts';
import { validate } from '../../shared/http/validation.ts';
import { checkWebhookUrl } from '../../shared/webhooks/url-check.ts';

/** A new endpoint at version 1, with its signing secret: this answer is the only one that shows it. */
const respond = (endpoint: WebhookEndpoint) =>
  tagged(created({ ...webhookEndpointView(endpoint), secret: endpoint.secrets[0]?.secret }), 'webhook', {
    version: 1,
  });

export const handler = idempotentHandler(async (req, idempotency) => {
  const input = validate(createWebhookEndpointSchema, req.body);
  const url = await checkWebhookUrl(input.url);
  const endpoint = await createWebhookEndpoint(
    req.teamId,
    { ...input, url },
    idempotency.commitsWith(respond),
  );
  return respond(endpoint);
});
