import { eventPosition } from '../../domain/event-shape.ts';
import { EVENT_RETENTION_SECONDS } from '../events.ts';
import { deliveryKey } from '../keys.ts';

/** Where a delivery's items are and how long they are kept, from its event's id. */
export function positionOf(eventId: string): { teamId: number; position: string } {
  const located = eventPosition(eventId);
  if (!located) throw new Error(`not an event id: ${eventId}`);
  return located;
}

/** The delivery item's key. */
export const keyOf = (teamId: number, endpointId: number, eventId: string) =>
  deliveryKey(teamId, endpointId, positionOf(eventId).position);

/** The event's expiry: a delivery (and its attempts) is kept as long as its event. */
export function expiryOf(eventId: string): number {
  // The position starts with the event's seconds (event-shape.ts).
  return Number(positionOf(eventId).position.split('#')[0]) + EVENT_RETENTION_SECONDS;
}
