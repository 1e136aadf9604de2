import { getEvent } from '../../shared/data/events.ts';
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { eventReadScope } from '../../shared/domain/event-shape.ts';
import { validate } from '../../shared/domain/validation.ts';
import { redeliverSchema } from '../../shared/domain/webhook-input.ts';
import { accepted, httpHandler, requireScopes } from '../../shared/http/handler.ts';
import { redeliverEvent } from '../../shared/webhooks/redelivery.ts';

/**
 * The event again, to one endpoint or to every one subscribed to its type: 202 with the endpoints. Only to
 * endpoints that were sent it (redelivery.ts), and only for a token that may read the event's family: a
 * redelivery carries the event's whole body to the endpoint's URL.
 */
export const handler = httpHandler(async (req) => {
  const id = req.pathParams.id ?? '';
  const { endpoint_id } = validate(redeliverSchema, req.body);
  const found = await getEvent(req.teamId, id);
  if (found === undefined) throw new NotFoundError('Event', id);
  if ('forbidden' in found) throw new ForbiddenError();
  requireScopes(req, [eventReadScope(found.event.type)], 'to send this event');
  const endpoints = await redeliverEvent(found.event, endpoint_id);
  return accepted({ endpoint_ids: endpoints });
});
