import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dynamo, isoMicros, tableName } from '../../../shared/data/dynamo.ts';
import { EVENT_RETENTION_SECONDS } from '../../../shared/data/events.ts';
import { deliveryKey } from '../../../shared/data/keys.ts';
import { DELIVERY_READ_BUDGET } from '../../../shared/data/webhook-deliveries/views.ts';
import { noteDeliveryOutcome } from '../../../shared/data/webhook-endpoints.ts';
import { type ChangeEvent, eventPosition } from '../../../shared/domain/event-shape.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { RETRY_DELAYS_MS } from '../../../shared/webhooks/schedule.ts';
import { dueRequests } from '../../../shared/webhooks/sweeper.ts';
import { type ApiClient, type Caller, useApi } from '../../support/api.ts';
import { until } from '../../support/deliveries.ts';
import { eventsOf } from '../../support/events.ts';
import { roundTrips } from '../../support/round-trips.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';

/**
 * What an integrator sees of a delivery (as Svix's "attempted messages" and Stripe's event
 * deliveries show it): `GET /webhook-endpoints/{id}/deliveries` and `GET /events/{id}/deliveries`, each
 * delivery pending with its next try, being sent, succeeded or given up, on the real local stack (the
 * stream, the fan-out, the deliverer and a receiver on 127.0.0.1). Retries are driven with the deliverer's
 * injectable clock, as test/shared/webhooks/deliveries.services.test.ts does, at the next try the API itself shows.
 */
const api = useApi();
const receivers: Receiver[] = [];

beforeAll(() => useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' }));
afterEach(async () => {
  for (const receiver of receivers.splice(0)) {
    receiver.release();
    await receiver.close();
  }
});
afterAll(() => restoreSettings());

interface Delivery {
  event_id: string;
  event_type: string;
  status: 'pending' | 'sending' | 'succeeded' | 'failed';
  tries: number;
  next_try_at: string | null;
  last_attempt_at: string | null;
  finished_at: string | null;
  endpoint_id?: number;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** A team with an endpoint at a new receiver, subscribed to `types`; the receiver knows its secret. */
async function subscribed(types: string[], caller?: Caller) {
  const team = caller ?? (await api.caller());
  const at = await startReceiver();
  receivers.push(at);
  const created = await team.client.post('/api/v1/webhook-endpoints', { url: at.url, event_types: types });
  expect(created.status).toBe(201);
  at.secrets = [created.body.secret];
  return { ...team, receiver: at, endpointId: created.body.id as number };
}

async function brandCreated(client: ApiClient, name = 'Acme'): Promise<void> {
  expect((await client.post('/api/v1/brands', { name })).status).toBe(201);
}

const deliveriesPath = (endpointId: number) => `/api/v1/webhook-endpoints/${endpointId}/deliveries`;

/** The endpoint's deliveries (one page, `query` added), answered 200. */
async function deliveriesOf(client: ApiClient, endpointId: number, query = ''): Promise<Delivery[]> {
  const answer = await client.get(`${deliveriesPath(endpointId)}${query}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The endpoint's one delivery, once `holds` is true of it (the deliverer settles a try after the receiver has it). */
async function deliveryOnce(
  client: ApiClient,
  endpointId: number,
  holds: (delivery: Delivery) => boolean,
): Promise<Delivery> {
  let seen: Delivery[] = [];
  await until(
    async () => {
      seen = await deliveriesOf(client, endpointId);
      return seen.length === 1 && holds(seen[0] as Delivery);
    },
    20_000,
    () => JSON.stringify(seen),
  );
  return seen[0] as Delivery;
}

/** The sweep as the scheduled function runs it, at `now`, for this team's endpoints only. */
async function sweep(teamId: number, now: number) {
  const requests = (await dueRequests(now)).filter((request) => request.team_id === teamId);
  await Promise.all(requests.map((request) => deliverToEndpoint(request, { now: () => now })));
}

/**
 * Every page of a list from `path`, following each `Link: <…>; rel="next"`: its query (same filters and
 * limit, the next cursor) on the request's own path (whether the Link's path can be followed as given is
 * test/shared/http/list-links.services.test.ts's). The pages' items in order, and the Links followed.
 */
async function walk(client: ApiClient, path: string, query: string) {
  const items: Delivery[] = [];
  const links: string[] = [];
  let next: string | undefined = `${path}?${query}`;
  while (next !== undefined) {
    const answer = await client.get(next);
    expect(answer.status).toBe(200);
    items.push(...answer.body);
    const link = answer.headers.get('link');
    if (link === null) break;
    const url = /^<([^>]+)>; rel="next"$/.exec(link)?.[1] as string;
    links.push(url);
    next = `${path}${new URL(url).search}`;
    expect(links.length).toBeLessThan(20);
  }
  return { items, links };
}

describe("a webhook delivery's state", () => {
  it('a failed first try leaves it pending with its next try; after the schedule it is given up', async () => {
    const { client, receiver, endpointId, teamId } = await subscribed(['brand.created']);
    receiver.answer = () => ({ status: 500 });
    await brandCreated(client);
    const [event] = (await eventsOf(client, 1)) as ChangeEvent[];
    await receiver.received(1);
    let delivery = await deliveryOnce(client, endpointId, (d) => d.tries === 1 && d.status !== 'sending');
    const [attempt] = (await client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`)).body;
    expect(delivery).toMatchObject({
      event_id: event?.id,
      event_type: 'brand.created',
      status: 'pending',
      tries: 1,
      finished_at: null,
    });
    expect(delivery.next_try_at).toMatch(ISO);
    // The retry comes after the failed try, and not later than the schedule's second delay (+20% jitter).
    const triedAt = Date.parse(attempt.attempted_at);
    expect(Date.parse(delivery.next_try_at as string)).toBeGreaterThan(triedAt);
    expect(Date.parse(delivery.next_try_at as string)).toBeLessThanOrEqual(
      triedAt + Math.ceil((RETRY_DELAYS_MS[1] as number) * 1.2) + 1000,
    );
    expect(delivery.last_attempt_at === null || ISO.test(delivery.last_attempt_at)).toBe(true);
    expect(await deliveriesOf(client, endpointId, '?status=pending')).toEqual([delivery]);
    expect(await deliveriesOf(client, endpointId, '?status=failed')).toEqual([]);

    // Each retry at the time the API names: the tries count up, and the last one gives it up.
    let lastTry = 0;
    for (let tries = 2; tries <= RETRY_DELAYS_MS.length; tries++) {
      lastTry = Date.parse(delivery.next_try_at as string);
      await sweep(teamId, lastTry);
      delivery = await deliveryOnce(client, endpointId, (d) => d.tries === tries && d.status !== 'sending');
      if (tries < RETRY_DELAYS_MS.length) {
        expect(delivery.status).toBe('pending');
        expect(Date.parse(delivery.next_try_at as string)).toBeGreaterThan(lastTry);
      }
    }
    expect(receiver.deliveries).toHaveLength(RETRY_DELAYS_MS.length);
    expect(delivery).toMatchObject({
      event_id: event?.id,
      status: 'failed',
      tries: RETRY_DELAYS_MS.length,
      next_try_at: null,
    });
    expect(delivery.finished_at).toMatch(ISO);
    expect(Date.parse(delivery.finished_at as string)).toBeGreaterThanOrEqual(lastTry);
    expect(await deliveriesOf(client, endpointId, '?status=failed')).toEqual([delivery]);
    expect(await deliveriesOf(client, endpointId, '?status=pending')).toEqual([]);
  });

  it('a delivery answered 2xx has succeeded, in both lists', async () => {
    const { client, receiver, endpointId } = await subscribed(['brand.created']);
    await brandCreated(client);
    const [event] = (await eventsOf(client, 1)) as ChangeEvent[];
    await receiver.received(1);
    const delivery = await deliveryOnce(client, endpointId, (d) => d.status === 'succeeded');
    expect(delivery).toMatchObject({
      event_id: event?.id,
      event_type: 'brand.created',
      tries: 1,
      next_try_at: null,
    });
    expect(delivery.finished_at).toMatch(ISO);
    const byEvent = await client.get(`/api/v1/events/${event?.id}/deliveries`);
    expect(byEvent.status).toBe(200);
    expect(byEvent.body).toEqual([{ endpoint_id: endpointId, ...delivery }]);
    expect(await deliveriesOf(client, endpointId, '?status=succeeded')).toEqual([delivery]);
  });

  it('a try in flight is sending, until the receiver answers', async () => {
    const { client, receiver, endpointId, teamId } = await subscribed(['brand.created']);
    // Known slow, so the first try takes the lease and waits the full 15 s (a lease-free one is cut at 5 s,
    // which a busy machine can reach before the reads below).
    await noteDeliveryOutcome(teamId, endpointId, { slowSince: Date.now() });
    receiver.answer = () => 'hold';
    await brandCreated(client);
    await receiver.received(1);
    const sending = await deliveryOnce(client, endpointId, (d) => d.status === 'sending');
    expect(sending).toMatchObject({ tries: 1, next_try_at: null, finished_at: null });
    expect(await deliveriesOf(client, endpointId, '?status=sending')).toEqual([sending]);
    expect(await deliveriesOf(client, endpointId, '?status=pending')).toEqual([]);
    const byEvent = await client.get(`/api/v1/events/${sending.event_id}/deliveries`);
    expect(byEvent.body).toEqual([{ endpoint_id: endpointId, ...sending }]);
    receiver.release();
    expect((await deliveryOnce(client, endpointId, (d) => d.status !== 'sending')).status).toBe('succeeded');
  });

  it("an event's deliveries: one per endpoint that has one, by endpoint id, each in its own state", async () => {
    const failing = await subscribed(['brand.created']);
    const { client } = failing;
    const fine = await subscribed(['brand.created'], failing);
    const other = await subscribed(['brand.updated'], failing);
    failing.receiver.answer = () => ({ status: 503 });
    await brandCreated(client);
    const [event] = (await eventsOf(client, 1)) as ChangeEvent[];
    await deliveryOnce(client, failing.endpointId, (d) => d.tries === 1 && d.status === 'pending');
    await deliveryOnce(client, fine.endpointId, (d) => d.status === 'succeeded');
    const answer = await client.get(`/api/v1/events/${event?.id}/deliveries`);
    expect(answer.status).toBe(200);
    expect(answer.body.map((d: Delivery) => [d.endpoint_id, d.status, d.event_type])).toEqual([
      [failing.endpointId, 'pending', 'brand.created'],
      [fine.endpointId, 'succeeded', 'brand.created'],
    ]);
    expect(answer.body[0].next_try_at).toMatch(ISO);
    expect(await deliveriesOf(client, other.endpointId)).toEqual([]);
  });

  it('filters by state and pages newest event first, following each Link', async () => {
    const { client, receiver, endpointId } = await subscribed(['brand.created']);
    receiver.answer = (delivery) => (delivery.body.includes('"Fails') ? { status: 500 } : { status: 204 });
    const names = ['Fails 1', 'Works 1', 'Fails 2', 'Works 2', 'Works 3'];
    for (const name of names) await brandCreated(client, name);
    const events = await eventsOf(client, names.length);
    await receiver.received(names.length);
    await until(async () => {
      const all = await deliveriesOf(client, endpointId);
      return all.length === names.length && all.every((d) => d.status !== 'sending');
    });
    const failed = new Set(
      events
        .filter((e) => String((e.data.object as { name: string }).name).startsWith('Fails'))
        .map((e) => e.id),
    );
    const newestFirst = events.map((event) => event.id);

    // A page is one read of the endpoint and one Query, however many deliveries it has: no read per item
    // (the deliverer writes each item with its event's type; items that lack it cost one BatchGetItem).
    const page = await roundTrips(() => client.get(`${deliveriesPath(endpointId)}?limit=5`));
    expect(page.result.body).toHaveLength(names.length);
    expect(page.calls.sort()).toEqual(['GetItemCommand', 'QueryCommand']);

    const all = await walk(client, deliveriesPath(endpointId), 'limit=2');
    expect(all.items.map((d) => d.event_id)).toEqual(newestFirst);
    expect(all.links).toHaveLength(2);
    for (const link of all.links) expect(new URL(link).searchParams.get('limit')).toBe('2');

    const pending = await walk(client, deliveriesPath(endpointId), 'status=pending&limit=1');
    expect(pending.items.map((d) => d.event_id)).toEqual(newestFirst.filter((id) => failed.has(id)));
    expect(pending.items.every((d) => d.status === 'pending' && d.tries === 1)).toBe(true);
    for (const link of pending.links) expect(new URL(link).searchParams.get('status')).toBe('pending');

    const succeeded = await walk(client, deliveriesPath(endpointId), 'status=succeeded&limit=2');
    expect(succeeded.items.map((d) => d.event_id)).toEqual(newestFirst.filter((id) => !failed.has(id)));
    expect(succeeded.items.every((d) => d.status === 'succeeded')).toBe(true);
    expect(await deliveriesOf(client, endpointId, '?status=failed')).toEqual([]);

    // A cursor is bound to its filter: another filter's is refused.
    const cursor = new URL(pending.links[0] as string).searchParams.get('cursor') as string;
    const mixed = await client.get(`${deliveriesPath(endpointId)}?status=succeeded&cursor=${cursor}`);
    expect(mixed.status).toBe(400);
  });

  it('reads a delivery item as deliverers write it: its type, a claim in flight or run out, the last try', async () => {
    // Items as a deliverer may write them (status `sending` with a lease, `event_type`, `last_attempt_at`),
    // or as it did before (`pending` with a live lease: a try in flight), read without the event log.
    const { client, endpointId, teamId } = await subscribed(['brand.updated']);
    const seconds = Math.floor(Date.now() / 1000);
    const now = Date.now();
    const lastTry = now - 5_000;
    const stored = async (sequence: number, attributes: Record<string, unknown>) => {
      const eventId = `evt_${teamId}_${seconds}_${sequence}_0`;
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...deliveryKey(teamId, endpointId, eventPosition(eventId)?.position as string),
            team_id: teamId,
            endpoint_id: endpointId,
            event_id: eventId,
            event_type: 'brand.updated',
            tries: 2,
            next_try_at: lastTry,
            last_attempt_at: lastTry,
            settled_at: lastTry - 60_000,
            expires_at: seconds + EVENT_RETENTION_SECONDS,
            ...attributes,
          },
        }),
      );
      return eventId;
    };
    const inFlight = await stored(1_000_003, { status: 'sending', lease_until: now + 60_000 });
    const leaseRanOut = now - 1_000;
    const orphaned = await stored(1_000_002, { status: 'sending', lease_until: leaseRanOut });
    const claimedBefore = await stored(1_000_001, { status: 'pending', lease_until: now + 60_000 });
    const common = { event_type: 'brand.updated', tries: 2, last_attempt_at: isoMicros(new Date(lastTry)) };
    const expected = [
      { event_id: inFlight, ...common, status: 'sending', next_try_at: null, finished_at: null },
      {
        event_id: orphaned,
        ...common,
        status: 'pending',
        // Due again once its lease ran out (its deliverer died): the sweep sends it.
        next_try_at: isoMicros(new Date(leaseRanOut)),
        finished_at: null,
      },
      { event_id: claimedBefore, ...common, status: 'sending', next_try_at: null, finished_at: null },
    ];
    expect(await deliveriesOf(client, endpointId)).toEqual(expected);
    expect(await deliveriesOf(client, endpointId, '?status=sending')).toEqual([expected[0], expected[2]]);
    expect(await deliveriesOf(client, endpointId, '?status=pending')).toEqual([expected[1]]);
  });

  it('a filter that matches few of many deliveries reads a bounded share per request, and a Link reads on', async () => {
    // More deliveries than one request reads, all succeeded but the oldest, which failed (written as a
    // deliverer writes them, with their type, so that the event log is not read).
    const { client, endpointId, teamId } = await subscribed(['brand.updated']);
    const count = DELIVERY_READ_BUDGET + 100;
    const seconds = Math.floor(Date.now() / 1000);
    const items = Array.from({ length: count }, (_, i) => {
      const eventId = `evt_${teamId}_${seconds}_${1_000_000 + i}_0`;
      return {
        ...deliveryKey(teamId, endpointId, eventPosition(eventId)?.position as string),
        team_id: teamId,
        endpoint_id: endpointId,
        event_id: eventId,
        event_type: 'brand.updated',
        status: i === 0 ? 'failed' : 'succeeded',
        tries: 1,
        next_try_at: Date.now(),
        settled_at: Date.now(),
        expires_at: seconds + EVENT_RETENTION_SECONDS,
      };
    });
    for (let start = 0; start < count; start += 25) {
      let batch: unknown[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      while (batch.length > 0) {
        const { UnprocessedItems } = await dynamo().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: batch as never } }),
        );
        batch = UnprocessedItems?.[tableName()] ?? [];
      }
    }
    const first = await roundTrips(() => client.get(`${deliveriesPath(endpointId)}?status=failed`));
    expect(first.result.status).toBe(200);
    expect(first.result.body).toEqual([]);
    expect(first.result.headers.get('link')).toMatch(/status=failed/);
    expect(first.calls.filter((call) => call === 'QueryCommand').length).toBeLessThanOrEqual(3);
    const walked = await walk(client, deliveriesPath(endpointId), 'status=failed');
    expect(walked.items.map((d) => [d.event_id, d.status])).toEqual([[items[0]?.event_id, 'failed']]);
    expect(walked.links).toHaveLength(1);
  });

  it('another team’s endpoint or event is a 403, none a 404, a status not one of the four a 422', async () => {
    const owner = await subscribed(['brand.created']);
    await brandCreated(owner.client);
    const [event] = (await eventsOf(owner.client, 1)) as ChangeEvent[];
    const stranger = await api.caller();
    expect((await stranger.client.get(deliveriesPath(owner.endpointId))).status).toBe(403);
    expect((await stranger.client.get(`/api/v1/events/${event?.id}/deliveries`)).status).toBe(403);
    expect((await stranger.client.get(deliveriesPath(999_999_999))).status).toBe(404);
    const unknown = `evt_${stranger.teamId}_${Math.floor(Date.now() / 1000)}_42_0`;
    expect((await stranger.client.get(`/api/v1/events/${unknown}/deliveries`)).status).toBe(404);
    expect((await stranger.client.get('/api/v1/events/not-an-event/deliveries')).status).toBe(404);

    for (const query of ['status=given_up', 'status=pending&status=failed', 'status=']) {
      const refused = await owner.client.get(`${deliveriesPath(owner.endpointId)}?${query}`);
      expect(refused.status).toBe(422);
      expect(refused.body.errors.status).toEqual([
        'The selected status is invalid: the statuses are pending, sending, succeeded, failed.',
      ]);
    }
    const badLimit = await owner.client.get(`${deliveriesPath(owner.endpointId)}?limit=0`);
    expect(badLimit.status).toBe(422);
    expect(Object.keys(badLimit.body.errors)).toEqual(['limit']);
  });
});
