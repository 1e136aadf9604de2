import { isAttemptPosition, listAttempts } from '../../shared/data/webhook-deliveries/attempts.ts';
import { getWebhookEndpoint } from '../../shared/data/webhook-endpoints.ts';
import { httpHandler, pathId } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';
import { LIMITS } from '../../shared/limits.ts';

/** Newest first, in pages (the log of tries is never answered whole). */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  await getWebhookEndpoint(req.teamId, id);
  const paging = requestedPage(req, `webhook-attempts:${id}`, {}, isAttemptPosition, LIMITS.listPageSize);
  const { limit = LIMITS.listPageSize, after } = paging.options;
  return pageResponse(req, paging, await listAttempts(req.teamId, id, { limit, after }));
});
