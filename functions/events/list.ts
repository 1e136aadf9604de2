import { listEvents } from '../../shared/data/events.ts';
import { eventsQuery } from '../../shared/domain/requests.ts';
import { isEventPosition } from '../../shared/events/event-shape.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';
import { validate } from '../../shared/http/validation.ts';
import { LIMITS } from '../../shared/limits.ts';

/** Newest first, and never the whole log: without `limit`, pages of LIMITS.listPageSize linked by Link. */
export const handler = httpHandler(async (req) => {
  const { type, resource } = validate(eventsQuery, req.query);
  // The same types in any order or repetition are the same filter (for the cursor and the Link).
  const types = type && [...new Set(type)].sort();
  const filters = { type: types, resource: resource === undefined ? undefined : [resource] };
  const paging = requestedPage(req, 'events', filters, isEventPosition, LIMITS.listPageSize);
  const { limit = LIMITS.listPageSize, after } = paging.options;
  return pageResponse(req, paging, await listEvents(req.teamId, { types, resource }, { limit, after }));
});
