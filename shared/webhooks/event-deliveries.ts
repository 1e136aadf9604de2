import { type EventDeliveryView, eventDeliveries } from '../data/webhook-deliveries/views.ts';
import { allEndpoints } from '../data/webhook-endpoints.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';

/**
 * The event's delivery to each of its team's endpoints that has one: the endpoints (one Query, at most the
 * quota), then their deliveries of it (one BatchGetItem). Here, not in the deliveries' data module, which
 * the endpoints' module reads (enabling an endpoint resumes its parked retries).
 */
export async function deliveriesOfEvent(event: ChangeEvent): Promise<EventDeliveryView[]> {
  const endpoints = await allEndpoints(event.team_id);
  return eventDeliveries(
    event.team_id,
    event,
    endpoints.map((endpoint) => endpoint.id),
  );
}
