import { getEvent } from '../../shared/data/events.ts';
import { ForbiddenError, NotFoundError } from '../../shared/http/errors.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

/** One event: the team's (200), another team's (403), or none, malformed and expired ids included (404). */
export const handler = httpHandler(async (req) => {
  const id = req.pathParams.id ?? '';
  const found = await getEvent(req.teamId, id);
  if (found === undefined) throw new NotFoundError('Event', id);
  if ('forbidden' in found) throw new ForbiddenError();
  return ok(found.event);
});
