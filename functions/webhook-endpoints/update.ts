import {
  reviseWebhookEndpoint,
  webhookEndpointView,
  withSettings,
} from '../../shared/data/webhook-endpoints.ts';
import { validate } from '../../shared/domain/validation.ts';
import { updateWebhookEndpointSchema } from '../../shared/domain/webhook-input.ts';
import { requireEventTypeReads } from '../../shared/http/event-scopes.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf, tagged } from '../../shared/http/preconditions.ts';
import { checkWebhookUrl } from '../../shared/webhooks/url-check.ts';

/**
 * Only the fields given change; a new URL is checked as at creation. Enabling forgets past failures. Adding
 * an event type needs its family's read scope (EVENT_TYPE_FAMILIES), as subscribing at creation does, and so
 * does every type of the endpoint's when the URL changes: the subscription's events would go to the new URL.
 * A body that repeats the endpoint's own settings (read and sent back) needs no more than webhooks:write.
 */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  const input = validate(updateWebhookEndpointSchema, req.body);
  const expected = ifMatchOf(req.headers, 'webhook')?.version;
  // The new URL is looked up once the endpoint is read: another team's or none answers 403/404 first.
  const { endpoint, version } = await reviseWebhookEndpoint(
    req.teamId,
    id,
    async (current) => {
      const eventTypes = input.event_types ?? current.event_types;
      // Another URL than the stored one, as sent (one that normalises to it needs the scopes too).
      if (input.url !== undefined && input.url !== current.url) {
        requireEventTypeReads(req, eventTypes, (types) => `to send ${types} events to a new url`);
      } else {
        const added = eventTypes.filter((type) => !current.event_types.includes(type));
        requireEventTypeReads(req, added, (types) => `to subscribe to ${types}`);
      }
      return withSettings(current, {
        url: input.url === undefined ? current.url : await checkWebhookUrl(input.url),
        event_types: eventTypes,
        description: input.description === undefined ? current.description : input.description,
        disabled: input.disabled ?? current.disabled,
      });
    },
    expected,
  );
  return tagged(ok(webhookEndpointView(endpoint)), 'webhook', { version });
});
