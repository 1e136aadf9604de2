import { afterEach, describe, expect, it } from 'vitest';
import { failedDeliveriesSince, restartDelivery } from '../../../shared/data/webhook-deliveries/restarts.ts';
import { LEASE_MS } from '../../../shared/data/webhook-deliveries/state.ts';
import { findWebhookEndpoint } from '../../../shared/data/webhook-endpoints.ts';
import { SENDER_LEASE_MS } from '../../../shared/data/webhook-senders.ts';
import type { ChangeEvent } from '../../../shared/domain/event-shape.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { fanOut } from '../../../shared/webhooks/fan-out.ts';
import { DISABLE_AFTER_MS, JITTER, RETRY_DELAYS_MS } from '../../../shared/webhooks/schedule.ts';
import {
  type DeliveryRequest,
  INVOKE_ATTEMPTS,
  startOrLeaveDue,
} from '../../../shared/webhooks/start-deliveries.ts';
import { dueRequests } from '../../../shared/webhooks/sweeper.ts';
import { type Caller, useApi } from '../../support/api.ts';
import { storedDelivery, until } from '../../support/deliveries.ts';
import { eventsOf, writeEvents } from '../../support/events.ts';
import { runScript, stopChild } from '../../support/processes.ts';
import { type Receiver, receiverOf, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Webhook deliveries on the real local stack: API writes → the stream → the consumer's fan-out → the
 * deliverer (run by the Lambda stand-in of the test run) → a real receiver on 127.0.0.1 that verifies each
 * delivery with the `standardwebhooks` package. Retries are driven with the deliverer's injectable clock:
 * days of the schedule in seconds (the run has no sweeper of its own; the tests sweep).
 */
const api = useApi();
const receivers = useReceivers();
const children: Array<ReturnType<typeof runScript>> = [];

afterEach(async () => {
  for (const run of children.splice(0)) await stopChild(run.child, run.exited);
});

const receiver = () => receiverOf(receivers);

/** A team with an endpoint at a new receiver, subscribed to `types`; the receiver knows its secret. */
async function subscribed(types: string[], caller?: Caller) {
  const team = caller ?? (await api.caller());
  const at = await receiver();
  const created = await team.client.post('/api/v1/webhook-endpoints', { url: at.url, event_types: types });
  expect(created.status).toBe(201);
  at.secrets = [created.body.secret];
  return { ...team, receiver: at, endpoint: created.body as { id: number; secret: string } };
}

const brandCreated = async (caller: Caller, name = 'Acme') => {
  const brand = await caller.client.post('/api/v1/brands', { name });
  expect(brand.status).toBe(201);
  return brand.body as { id: number };
};

/**
 * The stored delivery of an event to an endpoint (the schedule's state), once its tries are settled: the
 * receiver has a try before the deliverer has written its outcome.
 */
async function deliveryItem(teamId: number, endpointId: number, eventId: string) {
  let item = await storedDelivery(teamId, endpointId, eventId);
  await until(async () => {
    item = await storedDelivery(teamId, endpointId, eventId);
    return item.claim === undefined;
  });
  return item;
}

/** The sweep as the scheduled function runs it, at `now`, for this team's endpoints only (others' are theirs). */
async function sweep(teamId: number, now: number) {
  const requests = (await dueRequests(now)).filter((request) => request.team_id === teamId);
  return (
    await Promise.all(requests.map((request) => deliverToEndpoint(request, { now: () => now })))
  ).flat();
}

describe('webhook deliveries', () => {
  it('delivers each event to the endpoints subscribed to its type, signed, with the event id and the event as the API shows it', async () => {
    const { client, receiver: brands, ...team } = await subscribed(['brand.created']);
    const fields = await subscribed(['contact_field.created'], { client, ...team });
    const brand = await brandCreated({ client, ...team });
    await client.post('/api/v1/contact-fields', {
      name: 'Plan',
      tag: 'plan',
      type: 'text',
      contact_type: 'person',
    });

    const [toBrands] = await brands.received(1);
    const [toFields] = await fields.receiver.received(1);
    const events = await eventsOf(client, 2);
    const created = events.find((event) => event.type === 'brand.created') as ChangeEvent;
    expect(toBrands?.id).toBe(created.id);
    expect(toBrands?.verifiedBy).toEqual(brands.secrets);
    expect(JSON.parse(toBrands?.body ?? '')).toEqual((await client.get(`/api/v1/events/${created.id}`)).body);
    expect(JSON.parse(toBrands?.body ?? '').data.object.id).toBe(brand.id);
    expect(JSON.parse(toFields?.body ?? '').type).toBe('contact_field.created');
    expect(toFields?.verifiedBy).toEqual(fields.receiver.secrets);
    // Each endpoint got its one type only.
    expect([brands.deliveries.length, fields.receiver.deliveries.length]).toEqual([1, 1]);
    const attempts = await client.get(`/api/v1/webhook-endpoints/${fields.endpoint.id}/attempts`);
    expect(attempts.body).toMatchObject([
      { event_id: JSON.parse(toFields?.body ?? '').id, status_code: 204, succeeded: true },
    ]);
  });

  it('signs under both secrets for a day after a rotation, then under the new one only', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    const rotated = await client.post(`/api/v1/webhook-endpoints/${endpoint.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    at.secrets = [endpoint.secret, rotated.body.secret];
    await brandCreated({ client, ...team });
    const [during] = await at.received(1);
    expect(during?.verifiedBy).toEqual([endpoint.secret, rotated.body.secret]);

    // A day and an hour later (the schedule's clock), the same event sent again verifies under the new one only.
    const later = Date.now() + 25 * 60 * 60 * 1000;
    await restartDelivery(team.teamId, endpoint.id, during?.id as string, later);
    await sweep(team.teamId, later);
    const [, after] = await at.received(2);
    expect(after?.id).toBe(during?.id);
    expect(after?.verifiedBy).toEqual([rotated.body.secret]);
  });

  it('retries a failing endpoint on the schedule, with jitter, then gives up; every try is in the attempts list', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    at.answer = () => ({ status: 500, body: 'x'.repeat(5000) });
    await brandCreated({ client, ...team });
    const [first] = await at.received(1);
    const eventId = first?.id as string;
    let item = await deliveryItem(team.teamId, endpoint.id, eventId);
    for (let tries = 1; tries < RETRY_DELAYS_MS.length; tries++) {
      // Not due a moment before its time; due at it.
      expect(await sweep(team.teamId, item.next_try_at - 1)).toEqual([]);
      const previous = item;
      await sweep(team.teamId, item.next_try_at);
      item = await deliveryItem(team.teamId, endpoint.id, eventId);
      expect(item.tries).toBe(tries + 1);
      if (tries + 1 < RETRY_DELAYS_MS.length) {
        const delay = item.next_try_at - previous.next_try_at;
        const planned = RETRY_DELAYS_MS[tries + 1] as number;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(planned * (1 - JITTER)));
        expect(delay).toBeLessThanOrEqual(Math.ceil(planned * (1 + JITTER)));
      }
    }
    expect(item.status).toBe('failed');
    expect(at.deliveries.map((delivery) => delivery.id)).toEqual(Array(RETRY_DELAYS_MS.length).fill(eventId));
    expect(at.deliveries.every((delivery) => delivery.verifiedBy.length === 1)).toBe(true);
    const attempts = await client.get(`/api/v1/webhook-endpoints/${endpoint.id}/attempts`);
    expect(attempts.body).toHaveLength(RETRY_DELAYS_MS.length);
    expect(attempts.body[0]).toMatchObject({ event_id: eventId, status_code: 500, succeeded: false });
    expect(Buffer.byteLength(attempts.body[0].response)).toBe(1024);
    // Within five days of failing: still enabled.
    expect((await client.get(`/api/v1/webhook-endpoints/${endpoint.id}`)).body.disabled).toBe(false);
  });

  it("honours a 429's or 503's Retry-After when it asks for longer than the schedule", async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    at.answer = (_, index) =>
      index === 0 ? { status: 503 } : { status: 429, headers: { 'Retry-After': '7200' } };
    await brandCreated({ client, ...team });
    const [first] = await at.received(1);
    const eventId = first?.id as string;
    const second = await deliveryItem(team.teamId, endpoint.id, eventId);
    await sweep(team.teamId, second.next_try_at);
    await at.received(2);
    const third = await deliveryItem(team.teamId, endpoint.id, eventId);
    // The schedule says 5 minutes; the answer asked for two hours.
    expect(third.next_try_at - second.next_try_at).toBeGreaterThanOrEqual(7200 * 1000);
  });

  it('disables an endpoint that answers 410 at once, and says so with a webhook_endpoint.disabled event to the others', async () => {
    const { client, receiver: gone, endpoint, ...team } = await subscribed(['brand.created']);
    const watcher = await subscribed(['webhook_endpoint.disabled', 'brand.created'], { client, ...team });
    gone.answer = () => ({ status: 410 });
    await brandCreated({ client, ...team });
    await gone.received(1);
    await watcher.receiver.received(2);
    const notice = watcher.receiver.deliveries.find((delivery) =>
      delivery.body.includes('"webhook_endpoint.disabled"'),
    );
    const event = JSON.parse(notice?.body ?? '');
    expect(event).toMatchObject({
      type: 'webhook_endpoint.disabled',
      resource: `webhook_endpoint:${endpoint.id}`,
      data: { object: { id: endpoint.id, disabled: true, disabled_reason: 'gone' } },
    });
    expect(notice?.verifiedBy).toEqual(watcher.receiver.secrets);
    const read = await client.get(`/api/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.body).toMatchObject({ disabled: true, disabled_reason: 'gone' });
    expect(read.body).not.toHaveProperty('secret');
    // Nothing more is sent to it (the watcher has the next event: its fan-out is done).
    await brandCreated({ client, ...team }, 'Second');
    await watcher.receiver.received(3);
    await deliverPending(team.teamId);
    expect(gone.deliveries).toHaveLength(1);
  });

  it('disables an endpoint that has failed for five days', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created', 'brand.updated']);
    at.answer = () => ({ status: 500 });
    const brand = await brandCreated({ client, ...team });
    await at.received(1);
    // Five days on, a new event fails too: the endpoint is disabled.
    await client.put(`/api/v1/brands/${brand.id}`, { name: 'Renamed' });
    const [first, second] = await at.received(2);
    await deliveryItem(team.teamId, endpoint.id, first?.id as string);
    await deliveryItem(team.teamId, endpoint.id, second?.id as string);
    // The first failure started the endpoint's failing period.
    await until(
      async () => (await findWebhookEndpoint(team.teamId, endpoint.id))?.endpoint.failing_since != null,
    );
    const later = Date.now() + DISABLE_AFTER_MS + 60_000;
    await restartDelivery(team.teamId, endpoint.id, second?.id as string, later);
    await sweep(team.teamId, later);
    const read = await client.get(`/api/v1/webhook-endpoints/${endpoint.id}`);
    expect(read.body).toMatchObject({ disabled: true, disabled_reason: 'failing' });
    const events = await eventsOf(client, 1, '&type=webhook_endpoint.disabled');
    expect(events[0]?.resource).toBe(`webhook_endpoint:${endpoint.id}`);
  });

  it('redelivers an event with its own id, to one endpoint or to all subscribed', async () => {
    const { client, receiver: one, endpoint, ...team } = await subscribed(['brand.created']);
    const other = await subscribed(['brand.created'], { client, ...team });
    await brandCreated({ client, ...team });
    const [original] = await one.received(1);
    await other.receiver.received(1);
    const toOne = await client.post(`/api/v1/events/${original?.id}/redeliver`, { endpoint_id: endpoint.id });
    expect(toOne.status).toBe(202);
    expect(toOne.body).toEqual({ endpoint_ids: [endpoint.id] });
    const [, again] = await one.received(2);
    expect(again?.id).toBe(original?.id);
    expect(again?.verifiedBy).toEqual(one.secrets);
    const toAll = await client.post(`/api/v1/events/${original?.id}/redeliver`, {});
    expect(toAll.body.endpoint_ids.sort()).toEqual([endpoint.id, other.endpoint.id].sort());
    await one.received(3);
    await other.receiver.received(2);
    expect(other.receiver.deliveries.map((delivery) => delivery.id)).toEqual([original?.id, original?.id]);
  });

  it('recovers what failed since a time, once the endpoint is enabled again', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    const since = new Date(Date.now() - 1000).toISOString();
    const disabled = await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ disabled: true, disabled_reason: 'manual' });
    await brandCreated({ client, ...team }, 'One');
    await brandCreated({ client, ...team }, 'Two');
    const events = await eventsOf(client, 2);
    // The fan-out follows the log: both deliveries are written, as given up, before anything is recovered.
    await until(async () => (await failedDeliveriesSince(team.teamId, endpoint.id, 0)).length === 2);
    // A disabled endpoint is sent nothing, and recovering it first is refused.
    const refused = await client.post(`/api/v1/webhook-endpoints/${endpoint.id}/recover`, { since });
    expect(refused.status).toBe(422);
    await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: false });
    const recovered = await client.post(`/api/v1/webhook-endpoints/${endpoint.id}/recover`, { since });
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ deliveries: 2 });
    const received = await at.received(2);
    expect(received.map((delivery) => delivery.id).sort()).toEqual(events.map((event) => event.id).sort());
    // Nothing failed since then any more.
    const again = await client.post(`/api/v1/webhook-endpoints/${endpoint.id}/recover`, { since });
    expect(again.body).toEqual({ deliveries: 0 });
  });

  it('retries pending when an endpoint is disabled resume when it is enabled again, their schedule going on', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    at.answer = () => ({ status: 500 });
    await brandCreated({ client, ...team });
    const [first] = await at.received(1);
    const eventId = first?.id as string;
    const pending = await deliveryItem(team.teamId, endpoint.id, eventId);
    expect(pending).toMatchObject({ status: 'pending', tries: 1 });
    await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: true });
    // Its retry comes due while it is disabled: parked, not given up, and out of the sweeps.
    await sweep(team.teamId, pending.next_try_at);
    const parked = await storedDelivery(team.teamId, endpoint.id, eventId);
    expect(parked).toMatchObject({
      status: 'pending',
      tries: 1,
      parked: true,
      next_try_at: pending.next_try_at,
    });
    expect(parked.gsi2pk).toBeUndefined();
    expect(await sweep(team.teamId, pending.next_try_at)).toEqual([]);
    // Enabled again: due again at its own next try, no recover needed.
    at.answer = () => ({ status: 204 });
    expect((await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: false })).status).toBe(
      200,
    );
    const resumed = await storedDelivery(team.teamId, endpoint.id, eventId);
    expect(resumed.parked).toBeUndefined();
    expect(resumed.gsi2pk).toBeDefined();
    await sweep(team.teamId, pending.next_try_at);
    const [, again] = await at.received(2);
    expect(again?.id).toBe(eventId);
    expect(await deliveryItem(team.teamId, endpoint.id, eventId)).toMatchObject({
      status: 'succeeded',
      tries: 2,
    });
  });

  it('sends nothing twice when the stream hands the same events over again', async () => {
    const { client, receiver: at, ...team } = await subscribed(['brand.created']);
    await brandCreated({ client, ...team });
    await at.received(1);
    const events = await eventsOf(client, 1);
    // The fan-out writes nothing: the deliverer's claim (written only if absent) finds the delivery done.
    const again = await fanOut(events);
    expect(again).toEqual([
      { team_id: team.teamId, endpoint_id: team.endpoint.id, event_ids: [events[0]?.id], first: true },
    ]);
    expect(await Promise.all(again.map((request) => deliverToEndpoint(request)))).toEqual([[]]);
    await deliverPending(team.teamId);
    expect(at.deliveries).toHaveLength(1);
  });

  it('an endpoint gets only the events made after it was registered, also when a record is read again', async () => {
    const { client, receiver: older, ...team } = await subscribed(['brand.created']);
    await brandCreated({ client, ...team });
    await older.received(1);
    const events = await eventsOf(client, 1);
    // Registered more than a second after the change, whatever the precision of either time.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const newer = await subscribed(['brand.created'], { client, ...team });
    // The batch handed over again (a restart, a retried batch): it reaches the older endpoint only.
    const requests = await fanOut(events);
    expect(requests.map((request) => request.endpoint_id)).toEqual([team.endpoint.id]);
    await Promise.all(requests.map((request) => deliverToEndpoint(request)));
    await deliverPending(team.teamId);
    expect(newer.receiver.deliveries).toHaveLength(0);
    expect(older.deliveries).toHaveLength(1);
    // What comes after it, it gets.
    await brandCreated({ client, ...team }, 'Later');
    const [later] = await newer.receiver.received(1);
    expect(JSON.parse(later?.body ?? '').data.object.name).toBe('Later');
  });

  it('an endpoint is never sent its own webhook_endpoint.disabled: not by the fan-out, recover or redeliver', async () => {
    const types = ['brand.created', 'webhook_endpoint.disabled'];
    const { client, receiver: gone, endpoint, ...team } = await subscribed(types);
    const watcher = await subscribed(types, { client, ...team });
    gone.answer = () => ({ status: 410 });
    const since = new Date(Date.now() - 1000).toISOString();
    await brandCreated({ client, ...team });
    await gone.received(1);
    // The watcher gets the brand and the notice; the fan-out of the notice is done by then.
    await watcher.receiver.received(2);
    const [notice] = await eventsOf(client, 1, '&type=webhook_endpoint.disabled');
    expect(notice?.resource).toBe(`webhook_endpoint:${endpoint.id}`);
    gone.answer = () => ({ status: 204 });
    await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: false });
    const refused = await client.post(`/api/v1/events/${notice?.id}/redeliver`, { endpoint_id: endpoint.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.endpoint_id).toHaveLength(1);
    // Recover sends what it failed (the brand), not the notice of its own disabling.
    const recovered = await client.post(`/api/v1/webhook-endpoints/${endpoint.id}/recover`, { since });
    expect(recovered.body).toEqual({ deliveries: 1 });
    await gone.received(2);
    const toAll = await client.post(`/api/v1/events/${notice?.id}/redeliver`, {});
    expect(toAll.body).toEqual({ endpoint_ids: [watcher.endpoint.id] });
    await watcher.receiver.received(3);
    await deliverPending(team.teamId);
    expect(gone.deliveries.map((delivery) => JSON.parse(delivery.body).type)).toEqual([
      'brand.created',
      'brand.created',
    ]);
  });

  it('one endpoint that does not answer delays no other', async () => {
    const { client, receiver: slow, ...team } = await subscribed(['brand.created']);
    const fast = await subscribed(['brand.created'], { client, ...team });
    slow.answer = () => 'hold';
    await brandCreated({ client, ...team });
    await slow.received(1);
    // The slow endpoint's request is still open while the other one is delivered.
    await fast.receiver.received(1);
    expect(slow.deliveries).toHaveLength(1);
    slow.release();
  });

  it('a deliverer killed mid-delivery: the delivery is sent again after its lease, with the same webhook-id', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.created']);
    await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: true });
    await brandCreated({ client, ...team });
    const [event] = await eventsOf(client, 1);
    // Recorded given up while disabled (the fan-out's run): the delivery a restart makes due again.
    await until(async () => (await failedDeliveriesSince(team.teamId, endpoint.id, 0)).length === 1);
    await client.put(`/api/v1/webhook-endpoints/${endpoint.id}`, { disabled: false });
    const eventId = event?.id as string;
    await restartDelivery(team.teamId, endpoint.id, eventId, Date.now());
    const request = { team_id: team.teamId, endpoint_id: endpoint.id, event_ids: [eventId] };
    await killedMidTry(request, at);
    // Claimed by the dead deliverer (the delivery and the endpoint): nobody sends it until its leases end.
    expect(await sweep(team.teamId, Date.now())).toEqual([]);
    await sweep(team.teamId, Date.now() + Math.max(LEASE_MS, SENDER_LEASE_MS) + 1000);
    const received = await at.received(2);
    expect(received.map((delivery) => delivery.id)).toEqual([eventId, eventId]);
    expect(new Set(received.map((delivery) => delivery.id)).size).toBe(1);
    expect((await deliveryItem(team.teamId, endpoint.id, eventId)).status).toBe('succeeded');
  });

  it('a deliverer killed mid first try: the retried invocation leaves it due at the lease end, the sweep sends it again with the same webhook-id', async () => {
    const { client, receiver: at, endpoint, ...team } = await subscribed(['brand.updated']);
    // Events in the log with no stream record: nothing but this test starts their deliveries.
    const [event] = await writeEvents(team.teamId, 1, { newest: new Date(Date.now() + 3000) });
    const eventId = event?.id as string;
    const [request] = await fanOut([event as ChangeEvent]);
    expect(request).toEqual({
      team_id: team.teamId,
      endpoint_id: endpoint.id,
      event_ids: [eventId],
      first: true,
    });
    await killedMidTry(request, at);
    // Claimed by the dead run (its first try wrote the delivery as its claim), and in no index.
    const claimed = await storedDelivery(team.teamId, endpoint.id, eventId);
    expect(claimed).toMatchObject({ status: 'sending', tries: 1 });
    expect(claimed.gsi2pk).toBeUndefined();
    // Lambda runs the failed invocation again: the live claim is left to its holder, due at its end.
    expect(await deliverToEndpoint(request as DeliveryRequest)).toEqual([]);
    const due = await storedDelivery(team.teamId, endpoint.id, eventId);
    expect(due.gsi2pk).toBeDefined();
    expect(await sweep(team.teamId, Date.now())).toEqual([]);
    await sweep(team.teamId, (claimed.lease_until as number) + 1000);
    const received = await at.received(2);
    expect(received.map((delivery) => delivery.id)).toEqual([eventId, eventId]);
    expect(await deliveryItem(team.teamId, endpoint.id, eventId)).toMatchObject({
      status: 'succeeded',
      tries: 2,
    });
  });

  it('an invocation Lambda refuses is tried again, then left due for the sweep: the stream batch does not fail', async () => {
    const { receiver: at, endpoint, ...team } = await subscribed(['brand.updated']);
    const events = await writeEvents(team.teamId, 2, { newest: new Date(Date.now() + 4000) });
    const requests = await fanOut(events);
    let invokes = 0;
    // Lambda throttling every invoke (a fault injected around the call; the table is the real one).
    const throttled = async () => {
      invokes++;
      throw Object.assign(new Error('Rate Exceeded.'), { name: 'TooManyRequestsException' });
    };
    expect(await startOrLeaveDue(requests, Date.now, throttled)).toBe(2);
    expect(invokes).toBe(INVOKE_ATTEMPTS);
    for (const event of events) {
      expect(await storedDelivery(team.teamId, endpoint.id, event.id)).toMatchObject({
        status: 'pending',
        tries: 0,
      });
    }
    await deliverPending(team.teamId);
    expect(new Set((await at.received(2)).map((delivery) => delivery.id))).toEqual(
      new Set(events.map((e) => e.id)),
    );
  });

  it("what Lambda gives up on reaches the sweeper (the deliverer's on-failure destination) and is left due", async () => {
    const { receiver: at, endpoint, ...team } = await subscribed(['brand.updated']);
    const [event] = await writeEvents(team.teamId, 1, { newest: new Date(Date.now() + 3000) });
    const [request] = await fanOut([event as ChangeEvent]);
    const { handler } = await import('../../../functions/webhooks/sweeper.ts');
    await handler({
      requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      requestPayload: request,
      responsePayload: { errorMessage: 'Task timed out' },
    });
    expect(await storedDelivery(team.teamId, endpoint.id, event?.id as string)).toMatchObject({
      status: 'pending',
    });
    await deliverPending(team.teamId);
    const [sent] = await at.received(1);
    expect(sent?.id).toBe(event?.id);
  });
});

/**
 * A deliverer process (test/support/webhook-deliverer-process.ts) running `request`, killed (SIGKILL) while
 * the receiver holds its try open; the receiver answers 204 from then on.
 */
async function killedMidTry(request: unknown, at: Receiver): Promise<void> {
  at.answer = () => 'hold';
  const run = runScript('test/support/webhook-deliverer-process.ts', [JSON.stringify(request)], {
    ...process.env,
    LOG_LEVEL: 'SILENT',
    METRICS: 'off',
    AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
  });
  children.push(run);
  await at.received(1);
  run.child.kill('SIGKILL');
  await run.exited;
  at.answer = () => ({ status: 204 });
}

/** Whatever of the team's is due now, tried (what a sweep would start). */
async function deliverPending(teamId: number) {
  return sweep(teamId, Date.now());
}
