import { type EventType, eventReadScope } from '../domain/event-shape.ts';
import { allows } from '../scopes.ts';
import { type ApiRequest, requireScopes } from './handler.ts';

/**
 * What sending events of these types somewhere needs: the read scope of each type's family
 * (EVENT_TYPE_FAMILIES), since a delivery carries the event's whole body, as `GET /events/{id}` shows it, to
 * the endpoint's URL. A token without one is refused with 403 insufficient_scope naming the scopes it lacks
 * and, in `purpose(types)`, the types that need them (`to subscribe to brand.created, brand.updated`).
 */
export function requireEventTypeReads(
  req: ApiRequest,
  types: readonly EventType[],
  purpose: (types: string) => string,
): void {
  const lacking = types.filter((type) => !allows(req.scopes, eventReadScope(type)));
  if (lacking.length > 0) requireScopes(req, lacking.map(eventReadScope), purpose(lacking.join(', ')));
}
