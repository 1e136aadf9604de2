import { getEvent } from '../../shared/data/events.ts';
import { redeliverSchema } from '../../shared/domain/webhook-input.ts';
import { ForbiddenError, NotFoundError } from '../../shared/http/errors.ts';
import { accepted, httpHandler } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';
import { redeliverEvent } from '../../shared/webhooks/redelivery.ts';

/** The event again, to one endpoint or to every one subscribed to its type: 202 with the endpoints. */
export const handler = httpHandler(async (req) => {
  const id = req.pathParams.id ?? '';
  const { endpoint_id } = validate(redeliverSchema, req.body);
  const found = await getEvent(req.teamId, id);
  if (found === undefined) throw new NotFoundError('Event', id);
  if ('forbidden' in found) throw new ForbiddenError();
  const endpoints = await redeliverEvent(found.event, endpoint_id);
  return accepted({ endpoint_ids: endpoints });
});
