import { getEvent } from '../../shared/data/events.ts';
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { eventReadScope } from '../../shared/domain/event-shape.ts';
import { httpHandler, ok, requireScopes } from '../../shared/http/handler.ts';

/**
 * One event: the team's (200), another team's (403), or none, malformed and expired ids included (404). A
 * token that cannot read the event's family (brands:read for a brand's) gets 403 insufficient_scope naming
 * that scope, as the resource's own GET would answer it: what the event shows is that resource.
 */
export const handler = httpHandler(async (req) => {
  const id = req.pathParams.id ?? '';
  const found = await getEvent(req.teamId, id);
  if (found === undefined) throw new NotFoundError('Event', id);
  if ('forbidden' in found) throw new ForbiddenError();
  requireScopes(req, [eventReadScope(found.event.type)], 'for this event');
  return ok(found.event);
});
