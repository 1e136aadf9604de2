import {
  reviseWebhookEndpoint,
  webhookEndpointView,
  withSettings,
} from '../../shared/data/webhook-endpoints.ts';
import { updateWebhookEndpointSchema } from '../../shared/domain/webhook-input.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf, tagged } from '../../shared/http/preconditions.ts';
import { validate } from '../../shared/http/validation.ts';
import { checkWebhookUrl } from '../../shared/webhooks/url-check.ts';

/** Only the fields given change; a new URL is checked as at creation. Enabling forgets past failures. */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  const input = validate(updateWebhookEndpointSchema, req.body);
  const expected = ifMatchOf(req.headers, 'webhook')?.version;
  // The new URL is looked up once the endpoint is read: another team's or none answers 403/404 first.
  const { endpoint, version } = await reviseWebhookEndpoint(
    req.teamId,
    id,
    async (current) =>
      withSettings(current, {
        url: input.url === undefined ? current.url : await checkWebhookUrl(input.url),
        event_types: input.event_types ?? current.event_types,
        description: input.description === undefined ? current.description : input.description,
        disabled: input.disabled ?? current.disabled,
      }),
    expected,
  );
  return tagged(ok(webhookEndpointView(endpoint)), 'webhook', { version });
});
