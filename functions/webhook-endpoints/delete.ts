import { deleteWebhookEndpoint } from '../../shared/data/webhook-endpoints.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf } from '../../shared/http/preconditions.ts';

export const handler = httpHandler(async (req) => {
  const expected = ifMatchOf(req.headers, 'webhook')?.version;
  await deleteWebhookEndpoint(req.teamId, pathId(req, 'WebhookEndpoint'), expected);
  return ok({ message: 'Webhook endpoint deleted.' });
});
