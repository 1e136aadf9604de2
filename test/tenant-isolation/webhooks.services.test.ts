import { afterAll, describe, expect, it } from 'vitest';
import { setQuota } from '../../shared/data/quotas.ts';
import { shardOf } from '../../shared/data/webhook-deliveries/due.ts';
import { failedDeliveriesSince, restartDelivery } from '../../shared/data/webhook-deliveries/restarts.ts';
import { abandonDelivery, createDelivery } from '../../shared/data/webhook-deliveries/state.ts';
import { findWebhookEndpoint, noteDeliveryOutcome } from '../../shared/data/webhook-endpoints.ts';
import { eventId } from '../../shared/domain/event-shape.ts';
import { WEBHOOK_LIMITS } from '../../shared/limits.ts';
import { deliverToEndpoint } from '../../shared/webhooks/deliverer.ts';
import { DELIVERIES_PER_INVOCATION, startDeliveries } from '../../shared/webhooks/start-deliveries.ts';
import { dueRequests, SWEEP_PAGE_SIZE } from '../../shared/webhooks/sweeper.ts';
import { type Caller, useApi } from '../support/api.ts';
import { storedDelivery, until } from '../support/deliveries.ts';
import { writeEvents } from '../support/events.ts';
import {
  type ConcurrencyMeter,
  concurrencyMeter,
  type Receiver,
  startReceiver,
  subscribeEndpoint,
  useReceivers,
} from '../support/webhook-receiver.ts';

/**
 * Webhook deliveries, as a hostile tenant plays them against the local stack: the deliverer runs
 * in the run's Lambda stand-in (real asynchronous invocations, in parallel), and real receivers on
 * 127.0.0.1 count the requests they have open at once.
 *   - redeliver and recover start no second send of a delivery in flight, and are idempotent;
 *      one endpoint has at most 10 tries in flight, a team at most 20 endpoints × 10 (its leased runs);
 *   - one endpoint's backlog of 10,000 due deliveries does not keep another team's retry from the next sweep;
 *   - an endpoint keeps its newest attempts only.
 */
const api = useApi();
const receivers = useReceivers();

async function receiver(meter?: ConcurrencyMeter): Promise<Receiver> {
  const started = await startReceiver(meter);
  receivers.push(started);
  return started;
}

/** An endpoint of the team at a new receiver, subscribed to brand events; the receiver knows its secret. */
async function endpointOf(caller: Caller, meter?: ConcurrencyMeter) {
  return subscribeEndpoint(caller.client, await receiver(meter));
}

/** Long enough for invocations started by a call to have reached a receiver, were they to send. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

/**
 * `count` events of the team in its log, each with a delivery to each endpoint given up (as the fan-out
 * writes them for a disabled endpoint): what `recover` sends again.
 */
async function givenUp(teamId: number, endpointIds: number[], count: number): Promise<string[]> {
  const events = await writeEvents(teamId, count);
  const at = Date.now() - 60_000;
  const writes = endpointIds.flatMap((endpoint) => events.map((event) => ({ endpoint, event })));
  await inChunks(writes, ({ endpoint, event }) => createDelivery(teamId, endpoint, event.id, at, 'failed'));
  return events.map((event) => event.id);
}

/** `work` over `items`, 25 at a time (the local table on a busy machine). */
async function inChunks<T>(items: readonly T[], work: (item: T, index: number) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += 25) {
    await Promise.all(items.slice(start, start + 25).map((item, offset) => work(item, start + offset)));
  }
}

const distinct = (receiver: Receiver) => new Set(receiver.deliveries.map((delivery) => delivery.id));

describe('webhook deliveries: in flight at most once, bounded per endpoint and per team', () => {
  it('20 redeliver calls at once during a try: one request in flight, one more send after it, every call the same 202', async () => {
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    // Known slow, so the first try takes the lease and waits the full 15 s (a lease-free one is cut at 5 s,
    // which a busy machine can reach before the 20 calls are answered).
    await noteDeliveryOutcome(caller.teamId, endpointId, { slowSince: Date.now() });
    at.answer = () => 'hold';
    const brand = await caller.client.post('/api/v1/brands', { name: 'Acme' });
    expect(brand.status).toBe(201);
    const [first] = await at.received(1);
    const event = first?.id as string;

    const calls = await Promise.all(
      Array.from({ length: 20 }, () =>
        caller.client.post(`/api/v1/events/${event}/redeliver`, { endpoint_id: endpointId }),
      ),
    );
    expect(calls.map((call) => call.status)).toEqual(Array(20).fill(202));
    expect(calls.map((call) => call.body)).toEqual(Array(20).fill({ endpoint_ids: [endpointId] }));
    // The try in flight keeps its claim; the redeliveries are one mark to run again after it.
    const during = await storedDelivery(caller.teamId, endpointId, event);
    expect(during.claim).toBeDefined();
    expect(during.rerun).toBe(true);
    await settle();
    expect(at.deliveries).toHaveLength(1);
    expect(at.concurrency.peak).toBe(1);

    at.release();
    const received = await at.received(2);
    await until(async () => (await storedDelivery(caller.teamId, endpointId, event)).status === 'succeeded');
    await settle();
    expect(received.map((delivery) => delivery.id)).toEqual([event, event]);
    expect(at.deliveries).toHaveLength(2);
    expect(at.concurrency.peak).toBe(1);
    expect((await storedDelivery(caller.teamId, endpointId, event)).rerun).toBeUndefined();
  });

  it('20 recover calls at once: each delivery restarted by one call and sent once', async () => {
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    at.answer = () => ({ status: 204, delayMs: 100 });
    const events = await givenUp(caller.teamId, [endpointId], 8);
    const since = new Date(Date.now() - 3_600_000).toISOString();

    const calls = await Promise.all(
      Array.from({ length: 20 }, () =>
        caller.client.post(`/api/v1/webhook-endpoints/${endpointId}/recover`, { since }),
      ),
    );
    expect(calls.map((call) => call.status)).toEqual(Array(20).fill(202));
    // Each given-up delivery is restarted by exactly one of the calls; a repeat finds it restarted already.
    expect(calls.reduce((sum, call) => sum + call.body.deliveries, 0)).toBe(8);
    await at.received(8);
    await settle();
    expect(at.deliveries).toHaveLength(8);
    expect(distinct(at)).toEqual(new Set(events));
    expect(at.concurrency.peak).toBeLessThanOrEqual(WEBHOOK_LIMITS.triesInFlightPerEndpoint);
    expect(await failedDeliveriesSince(caller.teamId, endpointId, 0)).toEqual([]);
  });

  it('six deliverer invocations of one endpoint at once: at most 10 requests in flight to it, each delivery sent', async () => {
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    // Every request held open: what is in flight only grows until the bound (before: 6 × 10 = 60).
    at.answer = () => 'hold';
    const events = await givenUp(caller.teamId, [endpointId], 60);
    const now = Date.now();
    await inChunks(events, (id) => restartDelivery(caller.teamId, endpointId, id, now));
    // What the stream consumer, the sweeper, redeliver and recover may start side by side.
    await startDeliveries(
      Array.from({ length: 6 }, (_, index) => ({
        team_id: caller.teamId,
        endpoint_id: endpointId,
        event_ids: events.slice(index * 10, index * 10 + 10),
      })),
    );
    await until(() => at.concurrency.open >= WEBHOOK_LIMITS.triesInFlightPerEndpoint);
    await settle();
    expect(at.concurrency.open).toBe(WEBHOOK_LIMITS.triesInFlightPerEndpoint);
    expect(at.concurrency.peak).toBe(WEBHOOK_LIMITS.triesInFlightPerEndpoint);
    at.release();
    // The other runs handed their deliveries to the one sending: it sends them all, 10 at a time.
    await until(() => distinct(at).size === events.length);
    expect(distinct(at)).toEqual(new Set(events));
    expect(at.concurrency.peak).toBe(WEBHOOK_LIMITS.triesInFlightPerEndpoint);
  });

  it('a team recovering more endpoints at once than it may send to has that many endpoints sending, no more; what waited is sent by the sweep', async () => {
    const caller = await api.caller();
    const team = concurrencyMeter();
    // The bound is the default endpoint quota (20): a team given a larger quota has two more. Each endpoint
    // has one delivery held open by its receiver, so the team's open requests count its endpoints sending
    // (the 10 tries per endpoint are the test of six invocations above).
    const count = WEBHOOK_LIMITS.delivererRunsPerTeam + 2;
    await setQuota(caller.teamId, 'webhook_endpoints', count);
    const endpoints = await Promise.all(Array.from({ length: count }, () => endpointOf(caller, team)));
    for (const { receiver: at } of endpoints) at.answer = () => 'hold';
    const ids = endpoints.map((endpoint) => endpoint.id);
    const events = await givenUp(caller.teamId, ids, 1);
    const since = new Date(Date.now() - 3_600_000).toISOString();

    // Without the bound: 22 endpoints sending at once for one team.
    const calls = await Promise.all(
      ids.map((id) => caller.client.post(`/api/v1/webhook-endpoints/${id}/recover`, { since })),
    );
    expect(calls.map((call) => [call.status, call.body])).toEqual(
      Array(count).fill([202, { deliveries: 1 }]),
    );
    const bound = WEBHOOK_LIMITS.delivererRunsPerTeam;
    await until(() => team.open >= bound);
    await settle();
    expect(team.open).toBe(bound);
    expect(team.peak).toBe(bound);
    const sending = endpoints.filter((endpoint) => endpoint.receiver.deliveries.length > 0);
    expect(sending).toHaveLength(bound);

    // The endpoints the team could not send to meanwhile stay due: the sweeps (here, in a loop) start them.
    for (const { receiver: at } of endpoints) at.release();
    await until(async () => {
      const due = (await dueRequests(Date.now())).filter((request) => request.team_id === caller.teamId);
      await startDeliveries(due);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return endpoints.every((endpoint) => distinct(endpoint.receiver).size === events.length);
    });
    for (const { receiver: at } of endpoints) expect(distinct(at)).toEqual(new Set(events));
    expect(team.peak).toBe(bound);
  });
});

describe('webhook deliveries: a slow endpoint takes no more than its share', () => {
  it("once a try took 5 s, an endpoint's first tries take its lease: one run sends, the others hand theirs to it", async () => {
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    // Events in the log with no stream record, made after the endpoint: only this test starts them.
    const events = await writeEvents(caller.teamId, 12, { newest: new Date(Date.now() + 15_000) });
    at.answer = () => ({ status: 204, delayMs: WEBHOOK_LIMITS.slowTryMs + 100 });
    const first = { team_id: caller.teamId, endpoint_id: endpointId, first: true as const };
    await deliverToEndpoint({ ...first, event_ids: [events[0]?.id as string] });
    expect((await findWebhookEndpoint(caller.teamId, endpointId))?.endpoint.slow_since).toBeGreaterThan(0);

    // Two fan-out runs of 6 and 5 first tries at once: without the lease, 11 requests open.
    at.answer = () => 'hold';
    const ids = events.slice(1).map((event) => event.id);
    await startDeliveries([
      { ...first, event_ids: ids.slice(0, 6) },
      { ...first, event_ids: ids.slice(6) },
    ]);
    await until(() => at.concurrency.open >= 6);
    await settle();
    // One run holds the endpoint and sends its 6; the other handed its 5 over to it.
    expect(at.concurrency.open).toBe(6);
    at.answer = () => ({ status: 204 });
    at.release();
    await until(() => distinct(at).size === events.length);
    at.release();
    expect(at.concurrency.peak).toBeLessThanOrEqual(WEBHOOK_LIMITS.triesInFlightPerEndpoint);
    // Quick again: a run whose tries are all quick takes the mark away. (A first try meeting the run that
    // still holds the endpoint is handed to it, and that run's held tries were slow: try again.)
    for (let run = 0; run < 5; run++) {
      const [quick] = await writeEvents(caller.teamId, 1, { newest: new Date(Date.now() + 15_000) });
      await deliverToEndpoint({ ...first, event_ids: [quick?.id as string] });
      if ((await findWebhookEndpoint(caller.teamId, endpointId))?.endpoint.slow_since === null) break;
      await settle();
    }
    expect((await findWebhookEndpoint(caller.teamId, endpointId))?.endpoint.slow_since).toBeNull();
  });
});

describe('webhook deliveries: a backlog delays only its owner', () => {
  const backlog: Array<{ teamId: number; endpointId: number; eventId: string }> = [];
  afterAll(async () => {
    // Gone from the due index, so that other files' sweeps do not read through it.
    await inChunks(backlog, (due) => abandonDelivery(due.teamId, due.endpointId, due.eventId, Date.now()));
  });

  it("10,000 due deliveries of one team's failing endpoint, all in the shard of another team's retry: the first sweep at the retry's time starts it", async () => {
    const victim = await api.caller();
    const { receiver: at, id: victimEndpoint } = await endpointOf(victim);
    at.answer = (_, index) => (index === 0 ? { status: 500 } : { status: 204 });
    await victim.client.post('/api/v1/brands', { name: 'Victim' });
    const [first] = await at.received(1);
    const retried = first?.id as string;
    let retry: { next_try_at: number; claim?: string } | undefined;
    await until(async () => {
      retry = (await storedDelivery(victim.teamId, victimEndpoint, retried)) as unknown as typeof retry;
      return retry?.claim === undefined;
    });
    const dueAt = retry?.next_try_at as number;
    const shard = shardOf(victimEndpoint, retried);

    // The hostile team: an endpoint that is down, with 10,000 deliveries due before the victim's retry,
    // every one in the victim's shard (ten pages of the sweep's reading, where it used to read one).
    const hostile = await api.caller();
    const { id: downEndpoint } = await endpointOf(hostile);
    const seconds = Math.floor(Date.now() / 1000) - 3600;
    for (let sequence = 1; backlog.length < 10 * SWEEP_PAGE_SIZE; sequence++) {
      const id = eventId(
        hostile.teamId,
        { sequenceNumber: String(sequence), approximateCreationSeconds: seconds },
        0,
      );
      if (shardOf(downEndpoint, id) === shard) {
        backlog.push({ teamId: hostile.teamId, endpointId: downEndpoint, eventId: id });
      }
    }
    await inChunks(backlog, (due, index) =>
      createDelivery(due.teamId, due.endpointId, due.eventId, dueAt - 600_000 + index),
    );

    const swept = await dueRequests(dueAt);
    const victims = swept.filter((request) => request.team_id === victim.teamId);
    expect(victims).toEqual([{ team_id: victim.teamId, endpoint_id: victimEndpoint, event_ids: [retried] }]);
    // The backlog's owner gets its share: one request of at most one invocation's deliveries, oldest first.
    const hostiles = swept.filter((request) => request.team_id === hostile.teamId);
    expect(hostiles).toHaveLength(1);
    expect(hostiles[0]?.event_ids).toEqual(
      backlog.slice(0, DELIVERIES_PER_INVOCATION).map((due) => due.eventId),
    );
    // And the retry is sent by what that sweep starts.
    await deliverToEndpoint(victims[0] as (typeof victims)[number], { now: () => dueAt });
    const [, again] = await at.received(2);
    expect(again?.id).toBe(retried);
  });

  it('a team with more endpoints due than it may send to at once gets that many requests a sweep', async () => {
    const caller = await api.caller();
    // Endpoint ids the sweep only reads off the index (no receiver is needed to count its requests).
    const ids = Array.from({ length: WEBHOOK_LIMITS.delivererRunsPerTeam + 2 }, (_, index) => index + 1);
    const events = await writeEvents(caller.teamId, 2);
    const at = Date.now() - 60_000;
    const writes = ids.flatMap((endpoint) => events.map((event) => ({ endpoint, event })));
    await inChunks(writes, ({ endpoint, event }) => createDelivery(caller.teamId, endpoint, event.id, at));
    const mine = (await dueRequests(Date.now())).filter((request) => request.team_id === caller.teamId);
    expect(mine).toHaveLength(WEBHOOK_LIMITS.delivererRunsPerTeam);
    for (const due of ids) {
      for (const event of events) await abandonDelivery(caller.teamId, due, event.id, Date.now());
    }
  });
});

describe('webhook deliveries: attempts kept per endpoint', () => {
  it('an endpoint keeps its newest attempts only: older ones are deleted after each run', async () => {
    expect(WEBHOOK_LIMITS.attemptsKeptPerEndpoint).toBe(1000);
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    at.answer = () => ({ status: 500 });
    const events = await givenUp(caller.teamId, [endpointId], 8);
    const run = async (ids: string[]) => {
      const now = Date.now();
      for (const id of ids) await restartDelivery(caller.teamId, endpointId, id, now);
      return deliverToEndpoint(
        { team_id: caller.teamId, endpoint_id: endpointId, event_ids: ids },
        { now: () => now, attemptsKept: 3 },
      );
    };
    expect(await run(events.slice(0, 5))).toHaveLength(5);
    const afterFirst = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`);
    expect(afterFirst.body).toHaveLength(3);
    expect(await run(events.slice(5))).toHaveLength(3);
    const afterSecond = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`);
    expect(afterSecond.body).toHaveLength(3);
    // The newest: the second run's three.
    expect(new Set(afterSecond.body.map((attempt: { event_id: string }) => attempt.event_id))).toEqual(
      new Set(events.slice(5)),
    );
    expect(at.deliveries).toHaveLength(8);
  });

  it("a healthy endpoint's first tries (no sender lease, attempts not numbered) keep its newest only too", async () => {
    const caller = await api.caller();
    const { receiver: at, id: endpointId } = await endpointOf(caller);
    const events = (await writeEvents(caller.teamId, 8)).map((event) => event.id);
    const run = (ids: string[]) =>
      deliverToEndpoint(
        { team_id: caller.teamId, endpoint_id: endpointId, event_ids: ids, first: true },
        { attemptsKept: 3, pruneEvery: 1 },
      );
    expect(await run(events.slice(0, 5))).toHaveLength(5);
    const afterFirst = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`);
    expect(afterFirst.body).toHaveLength(3);
    expect(await run(events.slice(5))).toHaveLength(3);
    const afterSecond = await caller.client.get(`/api/v1/webhook-endpoints/${endpointId}/attempts`);
    expect(new Set(afterSecond.body.map((attempt: { event_id: string }) => attempt.event_id))).toEqual(
      new Set(events.slice(5)),
    );
    expect(at.deliveries).toHaveLength(8);
    expect(new Set(at.deliveries.map((delivery) => delivery.id)).size).toBe(8);
  });
});
