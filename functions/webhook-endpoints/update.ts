import {
  getWebhookEndpoint,
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
  // Another team's or no endpoint answers 403/404 before its new URL is looked up.
  if (input.url !== undefined) await getWebhookEndpoint(req.teamId, id);
  const url = input.url === undefined ? undefined : await checkWebhookUrl(input.url);
  const expected = ifMatchOf(req.headers, 'webhook')?.version;
  const { endpoint, version } = await reviseWebhookEndpoint(
    req.teamId,
    id,
    (current) =>
      withSettings(current, {
        url: url ?? current.url,
        event_types: input.event_types ?? current.event_types,
        description: input.description === undefined ? current.description : input.description,
        disabled: input.disabled ?? current.disabled,
      }),
    expected,
  );
  return tagged(ok(webhookEndpointView(endpoint)), 'webhook', { version });
});
