import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY_DEFAULTS } from '../../lib/cdk/concurrency.ts';
import { createFunctionInvoker } from '../../lib/local/function-invoker.ts';
import { ReservedShares } from '../../lib/local/reserved-concurrency.ts';
import {
  LOCAL_ASYNC_CONFIG,
  LOCAL_DELIVERER_FUNCTION,
  LOCAL_FUNCTION_CLASSES,
  LOCAL_FUNCTIONS,
  LOCAL_SWEEPER_FUNCTION,
} from '../../lib/local/services.ts';
import { sdkClientOptions } from '../../shared/aws.ts';
import { shardOf } from '../../shared/data/webhook-deliveries/due.ts';
import { abandonDelivery, createDelivery } from '../../shared/data/webhook-deliveries/state.ts';
import { findWebhookEndpoint, noteDeliveryOutcome } from '../../shared/data/webhook-endpoints.ts';
import { eventId } from '../../shared/domain/event-shape.ts';
import { WEBHOOK_LIMITS } from '../../shared/limits.ts';
import {
  DELIVERIES_PER_INVOCATION,
  type DeliveryInvocation,
  type DeliveryRequest,
  ENDPOINTS_PER_SHARED_INVOCATION,
  startDeliveries,
  startOrLeaveDue,
} from '../../shared/webhooks/start-deliveries.ts';
import { dueRequests, SWEEP_PAGE_SIZE } from '../../shared/webhooks/sweeper.ts';
import { type Caller, useApi } from '../support/api.ts';
import { storedDelivery, until } from '../support/deliveries.ts';
import { writeEvents } from '../support/events.ts';
import { restoreSettings, useSettings } from '../support/settings.ts';
import {
  type Receiver,
  startReceiver,
  subscribeEndpoint,
  useReceivers,
} from '../support/webhook-receiver.ts';

/**
 * The deliverer's and the sweeper's capacity per team, under real parallel load: the deliverer
 * runs in a Lambda stand-in of this file's own (the local Invoke API) whose share of the deliverer is
 * small (POOL), as Lambda holds the deliverer to its reserved concurrency; receivers on 127.0.0.1 hold
 * requests open and count them.
 *   - a team's slow receivers hold at most its share (delivererRunsPerTeam) of the deliverer, and another
 *     team's deliveries arrive while they are held; what was past the share is sent later, none lost;
 *   - a team's healthy endpoints' first tries (no lease) are one run, not one per endpoint, and a receiver
 *     that turns slow holds it slowTryMs at most, and is marked;
 *   - a team's backlog of 3,000 due deliveries over 100 endpoints, in the shard of another team's retry,
 *     does not keep the next sweep from starting that retry.
 */
const api = useApi();
const receivers = useReceivers();

/** Room for one team's share and some: without the share, one team's slow runs would fill it. */
const POOL = WEBHOOK_LIMITS.delivererRunsPerTeam + 3;
let invoker: Server;
const shares = new ReservedShares({ ...CONCURRENCY_DEFAULTS, webhookDeliverer: POOL });
const deliverers = () => shares.of(LOCAL_DELIVERER_FUNCTION, 'webhookDeliverer');

beforeAll(async () => {
  invoker = createFunctionInvoker(LOCAL_FUNCTIONS, LOCAL_ASYNC_CONFIG, {
    classes: LOCAL_FUNCTION_CLASSES,
    shares,
  });
  await new Promise<void>((listening) => invoker.listen(0, '127.0.0.1', listening));
  // Before this file's first invocation: start-deliveries.ts makes its Lambda client once.
  useSettings({
    AUTOCONFIGURE_ALLOW_LOOPBACK: '1',
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(invoker.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  await new Promise((closed) => invoker.close(closed));
  restoreSettings();
});

async function endpointOf(caller: Caller) {
  const at: Receiver = await startReceiver();
  receivers.push(at);
  return subscribeEndpoint(caller.client, at);
}

/** A moment for runs started by a step to reach a receiver, were they to send (nothing is timed by it). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

const distinct = (receiver: Receiver) => new Set(receiver.deliveries.map((delivery) => delivery.id));

/** `work` over `items`, 25 at a time (the local table on a busy machine). */
async function inChunks<T>(items: readonly T[], work: (item: T, index: number) => Promise<unknown>) {
  for (let start = 0; start < items.length; start += 25) {
    await Promise.all(items.slice(start, start + 25).map((item, offset) => work(item, start + offset)));
  }
}

describe("the deliverer: a team's share", () => {
  it("team A's slow receivers hold at most its share of runs; team B's deliveries arrive while they are held; A's others are sent later", async () => {
    const share = WEBHOOK_LIMITS.delivererRunsPerTeam;
    // The bystander, ready before A's load starts.
    const b = await api.caller();
    const { receiver: healthy, id: bEndpoint } = await endpointOf(b);
    const bEvents = (await writeEvents(b.teamId, 4, { newest: new Date(Date.now() + 15_000) })).map(
      (made) => made.id,
    );
    await createDelivery(b.teamId, bEndpoint, bEvents[3] as string, Date.now() - 1000);

    // Team A: more slow endpoints than its share, 50 deliveries each (an invocation's most: five rounds of
    // 10 tries, each held open until the try's 15 s timeout, so a run holds its endpoint about 75 s).
    const a = await api.caller();
    const slow = await Promise.all(Array.from({ length: share + 3 }, () => endpointOf(a)));
    const sendingNow = () => slow.filter(({ receiver }) => receiver.concurrency.open > 0).length;
    let sendingPeak = 0;
    let holding = true;
    for (const { receiver } of slow) {
      receiver.answer = () => {
        sendingPeak = Math.max(sendingPeak, sendingNow());
        return holding ? 'hold' : { status: 204 };
      };
    }
    const events = (
      await writeEvents(a.teamId, DELIVERIES_PER_INVOCATION, { newest: new Date(Date.now() + 15_000) })
    ).map((made) => made.id);
    // Half are endpoints known slow getting fresh events; half have retries due (after an outage).
    const requests: DeliveryRequest[] = [];
    for (const [index, { id }] of slow.entries()) {
      if (index % 2 === 0) {
        await noteDeliveryOutcome(a.teamId, id, { slowSince: Date.now() });
        requests.push({ team_id: a.teamId, endpoint_id: id, event_ids: events, first: true });
      } else {
        await inChunks(events, (event) => createDelivery(a.teamId, id, event, Date.now() - 1000));
        requests.push({ team_id: a.teamId, endpoint_id: id, event_ids: events });
      }
    }
    await startDeliveries(requests);
    await until(() => sendingNow() >= share);
    await settle();
    // Before: all of A's endpoints were sent to at once, and A's runs held the whole POOL.
    expect(sendingNow()).toBe(share);

    // B's first tries (no lease) and a retry (B's own lease), while A holds its share.
    // What A's endpoints were at as each of B's deliveries arrived: how many were being sent to, and how
    // many had been sent all of theirs (a run that ended; B would wait for one if A held the whole POOL).
    const aAtB: Array<{ sending: number; done: number }> = [];
    healthy.answer = () => {
      const done = slow.filter(({ receiver }) => distinct(receiver).size === events.length).length;
      aAtB.push({ sending: sendingNow(), done });
      return { status: 204 };
    };
    await startDeliveries([
      { team_id: b.teamId, endpoint_id: bEndpoint, event_ids: bEvents.slice(0, 3), first: true },
      { team_id: b.teamId, endpoint_id: bEndpoint, event_ids: bEvents.slice(3) },
    ]);
    await until(() => distinct(healthy).size === bEvents.length);
    expect(distinct(healthy)).toEqual(new Set(bEvents));
    // Each of B's deliveries arrived while A's receivers held A's requests open, before any of A's runs
    // had ended.
    expect(aAtB.length).toBeGreaterThanOrEqual(bEvents.length);
    expect(aAtB.every(({ sending, done }) => sending > 0 && done === 0)).toBe(true);
    expect(sendingPeak).toBe(share);
    expect(deliverers().inFlight).toBeLessThanOrEqual(POOL);

    // A's runs past its share left their deliveries due, as did the tries cut by the timeout: sweeps (here
    // in a loop) send them once A's receivers answer. Late, none lost, never more than the share at once.
    holding = false;
    for (const { receiver } of slow) {
      const answer = receiver.answer;
      receiver.release();
      receiver.answer = answer;
    }
    await until(async () => {
      const due = (await dueRequests(Date.now())).filter((request) => request.team_id === a.teamId);
      await startDeliveries(due);
      await settle();
      return slow.every(({ receiver }) => distinct(receiver).size === events.length);
    });
    expect(sendingPeak).toBe(share);
  });

  it("a team's healthy endpoints' first tries (no lease) share one run; a receiver that turns slow holds it 5 s at most, and is marked", async () => {
    await until(() => deliverers().inFlight === 0);
    const caller = await api.caller();
    const endpoints = await Promise.all(Array.from({ length: POOL }, () => endpointOf(caller)));
    // The deliverer's runs as each request arrives (before: one run each endpoint, up to POOL).
    const runsAtArrival: number[] = [];
    for (const { receiver } of endpoints) {
      receiver.answer = () => {
        runsAtArrival.push(deliverers().inFlight);
        return 'hold';
      };
    }
    const events = (await writeEvents(caller.teamId, 2, { newest: new Date(Date.now() + 15_000) })).map(
      (made) => made.id,
    );
    // A batch of the team's first tries to each endpoint, as the fan-out starts them.
    await startDeliveries(
      endpoints.map(({ id }) => ({
        team_id: caller.teamId,
        endpoint_id: id,
        event_ids: events,
        first: true,
      })),
    );
    await until(() => endpoints.every(({ receiver }) => receiver.deliveries.length === events.length));
    // Every endpoint's requests were sent by one run of the deliverer.
    expect(runsAtArrival).toEqual(Array(POOL * events.length).fill(1));

    // The receivers never answer; the run lets go of them (each try cut at slowTryMs, a failed try due
    // again by the schedule) and each endpoint is marked slow: its next runs take the lease.
    await until(() => deliverers().inFlight === 0);
    for (const { receiver, id } of endpoints) {
      expect(receiver.concurrency.open).toBe(0);
      expect(receiver.deliveries).toHaveLength(events.length);
      for (const event of events) {
        expect(await storedDelivery(caller.teamId, id, event)).toMatchObject({ status: 'pending', tries: 1 });
      }
      expect((await findWebhookEndpoint(caller.teamId, id))?.endpoint.slow_since).toBeGreaterThan(0);
    }
  });

  it("the invocations of a batch: a team's first tries of one round each share one; a burst, a retry, another team's have their own", async () => {
    const sent: DeliveryInvocation[] = [];
    const first = (team: number, endpoint: number, count: number): DeliveryRequest => ({
      team_id: team,
      endpoint_id: endpoint,
      event_ids: Array.from({ length: count }, (_, index) => `e${endpoint}-${index}`),
      first: true,
    });
    const requests = [
      ...Array.from({ length: ENDPOINTS_PER_SHARED_INVOCATION + 1 }, (_, index) => first(1, index + 1, 10)),
      first(1, 100, 11),
      { team_id: 1, endpoint_id: 101, event_ids: ['retry'] },
      first(2, 1, 1),
    ];
    expect(await startOrLeaveDue(requests, Date.now, async (payload) => void sent.push(payload))).toBe(0);
    expect(sent).toEqual([
      first(1, 100, 11),
      { team_id: 1, endpoint_id: 101, event_ids: ['retry'] },
      { requests: requests.slice(0, ENDPOINTS_PER_SHARED_INVOCATION) },
      requests[ENDPOINTS_PER_SHARED_INVOCATION],
      first(2, 1, 1),
    ]);
  });
});

describe("the sweeper: a team's share of a sweep", () => {
  const backlog: Array<{ teamId: number; endpointId: number; eventId: string }> = [];
  afterAll(async () => {
    // Gone from the due index, so that other files' sweeps do not read through it.
    await inChunks(backlog, (due) => abandonDelivery(due.teamId, due.endpointId, due.eventId, Date.now()));
  });

  it("3,000 due deliveries of one team over 100 endpoints, in the shard of another team's retry and older: the next sweep starts the retry", async () => {
    const victim = await api.caller();
    const { receiver: at, id: victimEndpoint } = await endpointOf(victim);
    const [made] = await writeEvents(victim.teamId, 1);
    const retried = made?.id as string;
    const dueAt = Date.now() - 1000;
    await createDelivery(victim.teamId, victimEndpoint, retried, dueAt);
    const shard = shardOf(victimEndpoint, retried);

    // The hostile team: 100 endpoints (ids the index holds; none exists, so their runs give them up),
    // 30 due deliveries each, all in the victim's shard, all due before its retry: three of the sweep's
    // pages, twelve times what a sweep keeps of one team in a shard. (10,000 due of one endpoint is
    // test/tenant-isolation/webhooks.services.test.ts's; more here would only slow the run's whole-table scans.)
    const hostile = await api.caller();
    const seconds = Math.floor(Date.now() / 1000) - 3600;
    const perEndpoint = new Map<number, number>();
    for (let sequence = 1; backlog.length < 3 * SWEEP_PAGE_SIZE; sequence++) {
      const id = eventId(
        hostile.teamId,
        { sequenceNumber: String(sequence), approximateCreationSeconds: seconds },
        0,
      );
      const endpointId = (sequence % 100) + 1;
      if (shardOf(endpointId, id) !== shard || (perEndpoint.get(endpointId) ?? 0) >= 30) continue;
      perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + 1);
      backlog.push({ teamId: hostile.teamId, endpointId, eventId: id });
    }
    await inChunks(backlog, (due, index) =>
      createDelivery(due.teamId, due.endpointId, due.eventId, dueAt - 600_000 + index),
    );

    // What one sweep takes: the hostile team its share (5 endpoints, 50 each), the victim its retry.
    const swept = await dueRequests(Date.now());
    const hostiles = swept.filter((request) => request.team_id === hostile.teamId);
    expect(hostiles).toHaveLength(WEBHOOK_LIMITS.delivererRunsPerTeam);
    expect(swept.filter((request) => request.team_id === victim.teamId)).toEqual([
      { team_id: victim.teamId, endpoint_id: victimEndpoint, event_ids: [retried] },
    ]);

    // The sweeper itself, invoked as Lambda's schedule does, through the stand-in (its share: 1): the
    // retry is sent by the runs it starts, beside the hostile team's.
    const lambda = new LambdaClient(
      sdkClientOptions(`http://127.0.0.1:${(invoker.address() as AddressInfo).port}`, 'local'),
    );
    await lambda.send(new InvokeCommand({ FunctionName: LOCAL_SWEEPER_FUNCTION, InvocationType: 'Event' }));
    const [again] = await at.received(1);
    expect(again?.id).toBe(retried);
    await until(
      async () => (await storedDelivery(victim.teamId, victimEndpoint, retried)).status === 'succeeded',
    );
  });
});
