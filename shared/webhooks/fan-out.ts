import { createDelivery } from '../data/webhook-deliveries.ts';
import { allEndpoints, type WebhookEndpoint } from '../data/webhook-endpoints.ts';
import type { ChangeEvent } from '../events/event-shape.ts';
import type { DeliveryRequest } from './start-deliveries.ts';

/**
 * The deliveries of new events: one per event and endpoint of its team subscribed to its type, written
 * only if absent (a stream record delivered twice makes no second delivery). Those just written are due
 * now; what the caller starts is returned, per endpoint. A disabled endpoint's deliveries are written as
 * given up, so that `recover` can send them once the team enables it again.
 */
export async function fanOut(events: readonly ChangeEvent[], nowMs: number): Promise<DeliveryRequest[]> {
  const endpointsOfTeam = new Map<number, Promise<WebhookEndpoint[]>>();
  const endpointsOf = (teamId: number) => {
    let endpoints = endpointsOfTeam.get(teamId);
    if (!endpoints) {
      endpoints = allEndpoints(teamId);
      endpointsOfTeam.set(teamId, endpoints);
    }
    return endpoints;
  };
  // Every delivery written at once; what each event started, in the events' order.
  const started = await Promise.all(
    events.map(async (event) => {
      const subscribed = (await endpointsOf(event.team_id)).filter((endpoint) =>
        endpoint.event_types.includes(event.type),
      );
      const written = await Promise.all(
        subscribed.map(async (endpoint) => {
          const status = endpoint.disabled ? 'failed' : 'pending';
          const created = await createDelivery(event.team_id, endpoint.id, event.id, nowMs, status);
          return created && !endpoint.disabled ? [endpoint] : [];
        }),
      );
      return { event, endpoints: written.flat() };
    }),
  );
  const requests = new Map<number, DeliveryRequest>();
  for (const { event, endpoints } of started) {
    for (const endpoint of endpoints) {
      const request = requests.get(endpoint.id) ?? {
        team_id: event.team_id,
        endpoint_id: endpoint.id,
        event_ids: [],
      };
      request.event_ids.push(event.id);
      requests.set(endpoint.id, request);
    }
  }
  return [...requests.values()];
}
