import { isoMicros } from '../../shared/data/dynamo.ts';
import { listEvents, putEvents } from '../../shared/data/events.ts';
import { type ChangeEvent, eventId } from '../../shared/domain/event-shape.ts';
import type { ApiClient } from './api.ts';
import { HANG_MS } from './timeouts.ts';

/**
 * Change events in tests (the run's poller and consumer are started by global-setup.ts, as `npm start`
 * starts them): waiting for a team's events through the API, and events written straight into the log.
 */
/**
 * The caller's events (`GET /api/v1/events`, newest first, `query` added), once at least `count` are
 * there: the stream is read asynchronously. Fails after a deadline, naming what it saw.
 */
export async function eventsOf(client: ApiClient, count: number, query = ''): Promise<ChangeEvent[]> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const response = await client.get(`/api/v1/events?limit=200${query}`);
    if (response.status !== 200) throw new Error(`GET /api/v1/events: ${response.status} ${response.text}`);
    if (response.body.length >= count) return response.body;
    if (Date.now() > deadline) {
      throw new Error(
        `${count} events expected, ${response.body.length} came: ${response.text.slice(0, 500)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A team's events as the log holds them (the data module, newest first), once at least `count` are there:
 * the stream is read asynchronously. After a deadline, what there is.
 */
export async function loggedEvents(teamId: number, count: number): Promise<ChangeEvent[]> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const { items } = await listEvents(teamId, {}, { limit: 200 });
    if (items.length >= count || Date.now() > deadline) return items;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A brand's representation as events carry it (what the Event schema takes). */
export function brandObject(teamId: number, id: number, name: string): Record<string, unknown> {
  const at = '2026-11-25T09:46:31.123000Z';
  return {
    id,
    team_id: teamId,
    name,
    short_description: null,
    website_url: null,
    primary_color: null,
    secondary_color: null,
    is_default: false,
    logo_image: null,
    logo_square_image: null,
    header_image: null,
    footer_image: null,
    social_share_image: null,
    email_address_id: null,
    phone_id: null,
    social_links: null,
    tags: [],
    created_at: at,
    updated_at: at,
  };
}

/**
 * `count` brand.updated events of one made-up brand written straight into the team's log (no stream), the
 * i-th `count - i` seconds before `newest` (a Date) and with sequence number `i`: oldest first.
 */
export async function writeEvents(
  teamId: number,
  count: number,
  { newest = new Date(), brandId = 1 }: { newest?: Date; brandId?: number } = {},
): Promise<ChangeEvent[]> {
  const newestSeconds = Math.floor(newest.getTime() / 1000);
  const events = Array.from({ length: count }, (_, i): ChangeEvent => {
    const seconds = newestSeconds - (count - 1 - i);
    const change = { sequenceNumber: String(1_000_000 + i), approximateCreationSeconds: seconds };
    return {
      id: eventId(teamId, change, 0),
      type: 'brand.updated',
      created_at: isoMicros(new Date(seconds * 1000)),
      team_id: teamId,
      resource: `brand:${brandId}`,
      resource_version: i + 2,
      request_id: null,
      data: {
        object: brandObject(teamId, brandId, `Brand ${i + 1}`),
        previous_attributes: { name: `Brand ${i}` },
      },
    };
  });
  await putEvents(events);
  return events;
}
