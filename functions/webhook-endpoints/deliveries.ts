import { isDeliveryPosition, listEndpointDeliveries } from '../../shared/data/webhook-deliveries/views.ts';
import { getWebhookEndpoint } from '../../shared/data/webhook-endpoints.ts';
import { validate } from '../../shared/domain/validation.ts';
import { deliveriesQuery } from '../../shared/domain/webhook-input.ts';
import { httpHandler, pathId } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';
import { LIMITS } from '../../shared/limits.ts';

/** Each event's delivery to the endpoint and where it stands, newest event first, in pages. */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'WebhookEndpoint');
  const { status } = validate(deliveriesQuery, req.query);
  await getWebhookEndpoint(req.teamId, id);
  const filters = { status: status && [status] };
  const paging = requestedPage(
    req,
    `webhook-deliveries:${id}`,
    filters,
    isDeliveryPosition,
    LIMITS.listPageSize,
  );
  const { limit = LIMITS.listPageSize, after } = paging.options;
  return pageResponse(req, paging, await listEndpointDeliveries(req.teamId, id, status, { limit, after }));
});
