import { allEndpoints, type WebhookEndpoint } from '../data/webhook-endpoints.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';
import type { DeliveryRequest } from './start-deliveries.ts';

/**
 * Who gets the new events: per endpoint of the event's team subscribed to its type, the events to try,
 * oldest first. Reads the team's endpoints once per batch and writes nothing: the deliverer's first try
 * writes the delivery (its claim, written only if absent, so an event handed over twice is sent once).
 * An endpoint gets only the events made at or after it was registered (a stream record read again, after
 * a restart or a retried batch, never reaches an endpoint made since: redeliver and recover send older
 * ones), and never its own `webhook_endpoint.disabled` (that notice is for the team's other endpoints).
 * A disabled endpoint's events go to the deliverer too, which records them given up (`recover`).
 */
export async function fanOut(events: readonly ChangeEvent[]): Promise<DeliveryRequest[]> {
  const endpointsOfTeam = new Map<number, Promise<WebhookEndpoint[]>>();
  const endpointsOf = (teamId: number) => {
    let endpoints = endpointsOfTeam.get(teamId);
    if (!endpoints) {
      endpoints = allEndpoints(teamId);
      endpointsOfTeam.set(teamId, endpoints);
    }
    return endpoints;
  };
  const requests = new Map<string, DeliveryRequest>();
  for (const event of events) {
    for (const endpoint of await endpointsOf(event.team_id)) {
      if (!endpoint.event_types.includes(event.type)) continue;
      if (!madeAtOrAfter(event.created_at, endpoint.created_at)) continue;
      if (isOwnDisabledNotice(event, endpoint.id)) continue;
      const key = `${event.team_id}#${endpoint.id}`;
      const request = requests.get(key) ?? {
        team_id: event.team_id,
        endpoint_id: endpoint.id,
        event_ids: [],
        first: true,
      };
      request.event_ids.push(event.id);
      requests.set(key, request);
    }
  }
  return [...requests.values()];
}

/** What the event is to an endpoint: never its own `webhook_endpoint.disabled` (that is for the others). */
export const isOwnDisabledNotice = (event: Pick<ChangeEvent, 'type' | 'resource'>, endpointId: number) =>
  event.type === 'webhook_endpoint.disabled' && event.resource === `webhook_endpoint:${endpointId}`;

/**
 * Whether ISO 8601 UTC time `at` is at or after `since`, exactly: both are read to the microsecond
 * (events and endpoints may carry whole seconds, milliseconds or microseconds), no rounding through Date.
 */
export function madeAtOrAfter(at: string, since: string): boolean {
  return microsOf(at) >= microsOf(since);
}

function microsOf(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso);
  // Not the API's form: compared as it is (never reached for timestamps this service writes).
  if (!match) return iso;
  return `${match[1]}.${(match[2] ?? '').padEnd(6, '0').slice(0, 6)}`;
}
