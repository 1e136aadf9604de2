import { getWebhookEndpoint } from '../../shared/data/webhook-endpoints.ts';
import { validate } from '../../shared/domain/validation.ts';
import { recoverSchema } from '../../shared/domain/webhook-input.ts';
import { accepted, httpHandler, pathId } from '../../shared/http/handler.ts';
import { recoverFailed } from '../../shared/webhooks/redelivery.ts';

/** What failed since `since` is due again from the start of the schedule: 202 with how many. */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  const { since } = validate(recoverSchema, req.body);
  const { endpoint } = await getWebhookEndpoint(req.teamId, id);
  const recovered = await recoverFailed(endpoint, Date.parse(since));
  return accepted({ deliveries: recovered });
});
