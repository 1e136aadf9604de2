import { getEvent } from '../../shared/data/events.ts';
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { deliveriesOfEvent } from '../../shared/webhooks/event-deliveries.ts';

/** The event's delivery to each of the team's endpoints that has one; 403 another team's event, 404 none. */
export const handler = httpHandler(async (req) => {
  const id = req.pathParams.id ?? '';
  const found = await getEvent(req.teamId, id);
  if (found === undefined) throw new NotFoundError('Event', id);
  if ('forbidden' in found) throw new ForbiddenError();
  return ok(await deliveriesOfEvent(found.event));
});
