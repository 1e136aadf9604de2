import { describe, expect, it } from 'vitest';
import { handler as sweeperHandler } from '../functions/webhooks/sweeper.ts';
import {
  BOUNDED_RETURN_VALUES,
  PARTITION_BOUNDARIES,
  updatableWith,
  withinPartitions,
} from '../lib/cdk/partition-boundaries.ts';
import { eventsPk, sequenceKey, teamPk, tokenKey, webhooksPk } from '../shared/data/keys.ts';
import { TABLE_SCHEMA } from '../shared/data/table-schema.ts';
import { restartDelivery } from '../shared/data/webhook-deliveries.ts';
import { findWebhookEndpoint } from '../shared/data/webhook-endpoints.ts';
import type { ChangeEvent } from '../shared/events/event-shape.ts';
import { WEBHOOK_LIMITS } from '../shared/limits.ts';
import { deliverToEndpoint } from '../shared/webhooks/deliverer.ts';
import { dueRequests } from '../shared/webhooks/sweeper.ts';
import { html, startFixtureServer } from './autoconfigure/fixture-server.ts';
import { type Caller, useApi } from './support/api.ts';
import { storedDelivery, until } from './support/deliveries.ts';
import { loggedEvents, writeEvents } from './support/events.ts';
import { observe, observeFile, type TouchedKey, touchedBy } from './support/key-observer.ts';
import { type Receiver, startReceiver, useReceivers } from './support/webhook-receiver.ts';

/**
 * The code stays within the partitions the stack grants (lib/cdk/partition-boundaries.ts; the template's
 * side is test/stack-least-privilege.test.ts). DynamoDB Local enforces no IAM, so every key the authorizer,
 * the deliverer and the sweeper touch on the real client is recorded (key-observer.ts) while they do real
 * work (a request through the local gateway; deliveries to a real receiver on 127.0.0.1, with a retry, a
 * burst, a redelivery, a 410 that disables the endpoint and the notice of it) and held to the patterns.
 */
const api = useApi();
const receivers = useReceivers();

async function endpointAt(caller: Caller, types: string[]): Promise<{ id: number; receiver: Receiver }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await caller.client.post('/api/v1/webhook-endpoints', {
    url: receiver.url,
    event_types: types,
  });
  expect(created.status).toBe(201);
  receiver.secrets = [created.body.secret];
  return { id: created.body.id, receiver };
}

/** Each touched key that is outside `partitions`, or on an index, as `command pk` (none expected). */
const outside = (keys: TouchedKey[], partitions: readonly string[]) =>
  keys
    .filter((key) => key.indexName !== undefined || !withinPartitions(key.pk, partitions))
    .map((key) => `${key.command} ${key.pk}${key.indexName ? ` (index ${key.indexName})` : ''}`);

describe('least privilege: what the code touches is what the stack grants', () => {
  it('the authorizer reads (and may update) only tokens', async () => {
    observeFile('functions/authorizer.ts', 'authorizer');
    const caller = await api.caller();
    expect((await caller.client.get('/api/v1/brands')).status).toBe(200);
    const refused = await fetch(`${api.url}/api/v1/brands`, { headers: { authorization: 'Bearer tm_nope' } });
    expect(refused.status).toBe(401);

    for (const other of [teamPk(caller.teamId), webhooksPk(caller.teamId), eventsPk(caller.teamId)]) {
      expect(withinPartitions(other, PARTITION_BOUNDARIES.authorizer.partitions), other).toBe(false);
    }
    const keys = touchedBy('authorizer');
    expect(keys.length).toBeGreaterThan(0);
    expect(outside(keys, PARTITION_BOUNDARIES.authorizer.partitions)).toEqual([]);
    expect(keys.filter((key) => !['Get', 'GetItem', 'Update', 'UpdateItem'].includes(key.command))).toEqual(
      [],
    );
    const allowed = updatableWith(PARTITION_BOUNDARIES.authorizer.updatableAttributes);
    for (const update of keys.filter((key) => key.command.startsWith('Update'))) {
      expect(update.attributes?.filter((name) => !allowed.includes(name))).toEqual([]);
      expect(BOUNDED_RETURN_VALUES).toContain(update.returnValues ?? 'NONE');
    }
  });

  it("auto-configure, which fetches the caller's page, touches only its team's slots", async () => {
    // The handler's calls, and the slot's release, which runs from the module that took it (not under the
    // handler's frames: it goes out when the fetches end).
    observeFile('functions/brands/auto-configure.ts', 'auto-configure');
    observeFile('shared/autoconfigure/team-share.ts', 'auto-configure');
    const site = await startFixtureServer({ '/': html('<title>Observed</title>') });
    try {
      const caller = await api.caller();
      // A page read (a slot taken and let go), and a URL refused before any fetch (a slot taken and let go).
      const read = await caller.client.post('/api/v1/brands/auto-configure', { url: site.url('/') });
      expect(read.status).toBe(200);
      const refused = await caller.client.post('/api/v1/brands/auto-configure', { url: site.url('/none') });
      expect(refused.status).toBe(422);
    } finally {
      await site.close();
    }
    const { partitions } = PARTITION_BOUNDARIES.autoConfigureSlots;
    for (const other of [teamPk(1), webhooksPk(1), eventsPk(1), tokenKey('0'.repeat(64)).pk]) {
      expect(withinPartitions(other, partitions), other).toBe(false);
    }
    const keys = touchedBy('auto-configure');
    // Each call's take and release.
    expect(keys.filter((key) => key.command.startsWith('Update')).length).toBeGreaterThanOrEqual(4);
    expect(outside(keys, partitions)).toEqual([]);
  });

  it('the deliverer and the sweeper touch only the webhooks, endpoint and event partitions', async () => {
    const caller = await api.caller();
    const { teamId } = caller;
    const a = await endpointAt(caller, ['brand.updated']);
    const b = await endpointAt(caller, ['brand.updated', 'webhook_endpoint.disabled']);
    // Written straight into the log: no stream record, so the run's own pipeline delivers none of them.
    const events = await writeEvents(teamId, 2 + WEBHOOK_LIMITS.triesInFlightPerEndpoint + 1);
    const [retried, gone, ...burst] = events.map((event) => event.id) as [string, string, ...string[]];
    let now = Date.now();
    const deliver = (endpointId: number, eventIds: string[], first?: true) =>
      observe('deliverer', () =>
        deliverToEndpoint(
          { team_id: teamId, endpoint_id: endpointId, event_ids: eventIds, ...(first && { first }) },
          { now: () => now, attemptsKept: 2, pruneEvery: 1 },
        ),
      );
    const sweep = async () => {
      const requests = await observe('sweeper', () => dueRequests(now));
      return Promise.all(
        requests
          .filter((request) => request.team_id === teamId)
          .map((request) => deliver(request.endpoint_id, request.event_ids)),
      );
    };

    // A first try that fails (its endpoint now failing), then the sweep's retry that succeeds.
    a.receiver.answer = (_, index) => (index === 0 ? { status: 500 } : { status: 204 });
    await deliver(a.id, [retried], true);
    const { next_try_at } = await storedDelivery(teamId, a.id, retried);
    now = next_try_at;
    await sweep();
    expect(a.receiver.deliveries.map((delivery) => delivery.id)).toEqual([retried, retried]);
    expect((await storedDelivery(teamId, a.id, retried)).status).toBe('succeeded');

    // A burst: more than one round of tries, under the endpoint's sender lease.
    await deliver(a.id, burst, true);
    expect(a.receiver.deliveries).toHaveLength(2 + burst.length);

    // The redeliver's run: the delivery made due again, then tried.
    await restartDelivery(teamId, a.id, retried, now);
    await deliver(a.id, [retried]);
    expect(a.receiver.deliveries).toHaveLength(3 + burst.length);

    // A 410 disables the endpoint; its change still reaches the stream consumer, whose notice goes to the
    // team's other endpoint (the run's own pipeline) and into the log.
    a.receiver.answer = () => ({ status: 410 });
    await deliver(a.id, [gone], true);
    expect((await findWebhookEndpoint(teamId, a.id))?.endpoint.disabled_reason).toBe('gone');
    const [notice] = (await b.receiver.received(1)).map(
      (delivery) => JSON.parse(delivery.body) as ChangeEvent,
    );
    expect(notice).toMatchObject({ type: 'webhook_endpoint.disabled', resource: `webhook_endpoint:${a.id}` });
    expect((await loggedEvents(teamId, events.length + 1)).map((event) => event.id)).toContain(notice?.id);

    // The notice, as the deliverer sees it for each endpoint: the disabled one's own (given up, unsent), and a
    // second hand-over to the other (already claimed: not sent again). A retry due while disabled is parked.
    await deliver(a.id, [notice?.id as string], true);
    await deliver(b.id, [notice?.id as string], true);
    expect(b.receiver.deliveries).toHaveLength(1);
    await restartDelivery(teamId, a.id, retried, now);
    await deliver(a.id, [retried]);
    await until(async () => (await storedDelivery(teamId, a.id, retried)).parked === true);

    // What Lambda gives up on reaches the sweeper (its on-failure destination), which leaves it due.
    await observe('sweeper', () =>
      sweeperHandler({ requestPayload: { team_id: teamId, endpoint_id: b.id, event_ids: [burst[0]] } }),
    );

    // The bound leaves out the team's own partition (brands, fields, idempotency records), tokens, ids.
    for (const other of [teamPk(teamId), tokenKey('0'.repeat(64)).pk, sequenceKey('webhook').pk]) {
      expect(withinPartitions(other, PARTITION_BOUNDARIES.deliverer.partitions), other).toBe(false);
      expect(withinPartitions(other, PARTITION_BOUNDARIES.sweeper.partitions), other).toBe(false);
    }
    const delivererKeys = touchedBy('deliverer');
    expect(outside(delivererKeys, PARTITION_BOUNDARIES.deliverer.partitions)).toEqual([]);
    // It did touch each of its partitions: the bound is not looser than what it does.
    for (const partition of PARTITION_BOUNDARIES.deliverer.partitions) {
      expect(
        delivererKeys.some((key) => withinPartitions(key.pk, [partition])),
        partition,
      ).toBe(true);
    }
    expect(delivererKeys.map((key) => key.command)).toEqual(
      expect.arrayContaining(['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem']),
    );
    const sweeperKeys = touchedBy('sweeper');
    const onIndex = sweeperKeys.filter((key) => key.indexName !== undefined);
    expect(new Set(onIndex.map((key) => `${key.command} ${key.indexName}`))).toEqual(
      new Set([`Query ${TABLE_SCHEMA.dueIndex.name}`]),
    );
    const onTable = sweeperKeys.filter((key) => key.indexName === undefined);
    expect(onTable.length).toBeGreaterThan(0);
    expect(outside(onTable, PARTITION_BOUNDARIES.sweeper.partitions)).toEqual([]);
  });
});
