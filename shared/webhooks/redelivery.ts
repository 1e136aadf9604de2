import { failedDeliveriesSince, restartDelivery } from '../data/webhook-deliveries/restarts.ts';
import { allEndpoints, getWebhookEndpoint, type WebhookEndpoint } from '../data/webhook-endpoints.ts';
import { ValidationError } from '../domain/errors.ts';
import type { ChangeEvent } from '../domain/event-shape.ts';
import { isOwnDisabledNotice } from './fan-out.ts';
import { startDeliveries } from './start-deliveries.ts';

/**
 * Sending again on the team's request: an event to its endpoints (`redeliver`), or what failed to one
 * endpoint since a time (`recover`). Each delivery starts the schedule again, with the event's own id, so
 * a receiver that already has it can tell. Never a second send of a delivery in flight: a redelivery
 * during a try runs once after it (however many were asked), and starts no deliverer (the try's own runs
 * it again); a recovery restarts only what was given up, so a repeat finds nothing left to restart.
 *
 * Only again: an endpoint is sent by a redelivery only an event it has a delivery of, that is one it was
 * subscribed to when the event was made (an endpoint registered or subscribed later, or since deleted and
 * made anew, has none). The restart's own conditional write says so (restartDelivery: `absent`), no read
 * first: named by `endpoint_id`, such an endpoint is a 422; among all endpoints, it is left out of the
 * answer.
 */
export async function redeliverEvent(event: ChangeEvent, endpointId?: number): Promise<number[]> {
  const endpoints =
    endpointId === undefined
      ? (await allEndpoints(event.team_id)).filter(
          (endpoint) =>
            subscribed(endpoint, event) && !endpoint.disabled && !isOwnDisabledNotice(event, endpoint.id),
        )
      : [usable((await getWebhookEndpoint(event.team_id, endpointId)).endpoint, 'endpoint_id', event)];
  const now = Date.now();
  const restarted = await Promise.all(
    endpoints.map((endpoint) => restartDelivery(event.team_id, endpoint.id, event.id, now)),
  );
  if (endpointId !== undefined && restarted[0] === 'absent') {
    throw ValidationError.single(
      'endpoint_id',
      `The webhook endpoint was never sent this event: it was not subscribed to ${event.type} events when ` +
        'the event was made (redeliver sends an event again only to an endpoint that had it).',
    );
  }
  await startDeliveries(
    endpoints
      .filter((_, index) => restarted[index] === 'restarted')
      .map((endpoint) => ({ team_id: event.team_id, endpoint_id: endpoint.id, event_ids: [event.id] })),
  );
  return endpoints.filter((_, index) => restarted[index] !== 'absent').map((endpoint) => endpoint.id);
}

/** Restarts a recovery writes at once. */
const RESTARTS_AT_ONCE = 10;

/** The endpoint's deliveries given up at or after `sinceMs`, due again now. How many. */
export async function recoverFailed(endpoint: WebhookEndpoint, sinceMs: number): Promise<number> {
  usable(endpoint, 'since');
  const failed = await failedDeliveriesSince(endpoint.team_id, endpoint.id, sinceMs);
  const now = Date.now();
  // A few writes at a time: a recovery of thousands is not thousands of writes at once (one cut short by
  // the function timeout has kept what it restarted: a repeat restarts the rest).
  const eventIds: string[] = [];
  for (let start = 0; start < failed.length; start += RESTARTS_AT_ONCE) {
    const restarted = await Promise.all(
      failed
        .slice(start, start + RESTARTS_AT_ONCE)
        .map(async (eventId) =>
          (await restartDelivery(endpoint.team_id, endpoint.id, eventId, now, true)) === 'restarted'
            ? [eventId]
            : [],
        ),
    );
    eventIds.push(...restarted.flat());
  }
  if (eventIds.length > 0) {
    await startDeliveries([{ team_id: endpoint.team_id, endpoint_id: endpoint.id, event_ids: eventIds }]);
  }
  return eventIds.length;
}

const subscribed = (endpoint: WebhookEndpoint, event: ChangeEvent) =>
  endpoint.event_types.includes(event.type);

/** A disabled endpoint is sent nothing, and one is sent only the types it subscribes to: 422 otherwise. */
function usable(endpoint: WebhookEndpoint, field: string, event?: ChangeEvent): WebhookEndpoint {
  if (endpoint.disabled) {
    throw ValidationError.single(
      field,
      'The webhook endpoint is disabled: enable it first (PUT disabled: false).',
    );
  }
  if (event && !subscribed(endpoint, event)) {
    throw ValidationError.single(field, `The webhook endpoint does not subscribe to ${event.type} events.`);
  }
  if (event && isOwnDisabledNotice(event, endpoint.id)) {
    throw ValidationError.single(
      field,
      "An endpoint is not sent its own webhook_endpoint.disabled event: it goes to the team's other endpoints.",
    );
  }
  return endpoint;
}
