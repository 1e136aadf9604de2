import { listWebhookEndpoints, webhookEndpointView } from '../../shared/data/webhook-endpoints.ts';
import { isIdPosition } from '../../shared/domain/ordering.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';

export const handler = httpHandler(async (req) => {
  const paging = requestedPage(req, 'webhook-endpoints', {}, isIdPosition);
  const page = await listWebhookEndpoints(req.teamId, paging.options);
  return pageResponse(req, paging, page, webhookEndpointView);
});
