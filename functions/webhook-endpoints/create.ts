import {
  createWebhookEndpoint,
  currentSecretId,
  SECRET_ON_REPLAY,
  type WebhookEndpoint,
  webhookEndpointView,
} from '../../shared/data/webhook-endpoints.ts';
import { validate } from '../../shared/domain/validation.ts';
import { createWebhookEndpointSchema } from '../../shared/domain/webhook-input.ts';
import { requireEventTypeReads } from '../../shared/http/event-scopes.ts';
import { created } from '../../shared/http/handler.ts';
import { idempotentHandler } from '../../shared/http/idempotency.ts';
import { tagged } from '../../shared/http/preconditions.ts';
import { checkWebhookUrl } from '../../shared/webhooks/url-check.ts';

/** A new endpoint at version 1, with its signing secret: this answer is the only one that shows it. */
const respond = ({ endpoint, secret }: { endpoint: WebhookEndpoint; secret: string }) =>
  tagged(created({ ...webhookEndpointView(endpoint), secret }), 'webhook', { version: 1 });

/** What an Idempotency-Key record keeps: the answer with the secret's id in place of the secret. */
const recorded = (endpoint: WebhookEndpoint) =>
  tagged(created({ ...webhookEndpointView(endpoint), secret_id: currentSecretId(endpoint) }), 'webhook', {
    version: 1,
  });

export const handler = idempotentHandler(async (req, idempotency) => {
  const input = validate(createWebhookEndpointSchema, req.body);
  // Its events will carry their resources to a URL of the caller's choosing: it must read them (403 before
  // anything is looked up or written; not kept under an Idempotency-Key, as the route's own scope check).
  requireEventTypeReads(req, input.event_types, (types) => `to subscribe to ${types}`);
  const url = await checkWebhookUrl(input.url);
  const made = await createWebhookEndpoint(req.teamId, { ...input, url }, idempotency.commitsWith(recorded));
  return respond(made);
}, SECRET_ON_REPLAY);
