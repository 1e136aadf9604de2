import { listEvents } from '../../shared/data/events.ts';
import { EVENT_TYPES, isEventPosition, readableEventTypes } from '../../shared/domain/event-shape.ts';
import { eventsQuery } from '../../shared/domain/requests.ts';
import { validate } from '../../shared/domain/validation.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';
import { LIMITS } from '../../shared/limits.ts';

/**
 * Newest first, and never the whole log: without `limit`, pages of LIMITS.listPageSize linked by Link. Only
 * the events of types whose family the token reads (EVENT_TYPE_FAMILIES): the `type` filter's own condition
 * of the Query leaves the others out, so pages and cursors stay keyset-exact and no round trip is added; a
 * token that reads none of the types asked for gets an empty page without a read.
 */
export const handler = httpHandler(async (req) => {
  const { type, resource } = validate(eventsQuery, req.query);
  // The same types in any order or repetition are the same filter (for the cursor and the Link).
  const types = type && [...new Set(type)].sort();
  const filters = { type: types, resource: resource === undefined ? undefined : [resource] };
  const paging = requestedPage(req, 'events', filters, isEventPosition, LIMITS.listPageSize);
  const { limit = LIMITS.listPageSize, after } = paging.options;
  // The Link repeats the caller's filters; the token's scopes narrow them again on every page.
  const readable = readableEventTypes(req.scopes);
  const visible =
    readable.length === EVENT_TYPES.length
      ? types
      : (types ?? EVENT_TYPES).filter((eventType) => readable.includes(eventType));
  if (visible?.length === 0) return ok([]);
  return pageResponse(
    req,
    paging,
    await listEvents(req.teamId, { types: visible, resource }, { limit, after }),
  );
});
