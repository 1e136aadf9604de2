import { describe, expect, it } from 'vitest';
import { handler as sweeperHandler } from '../../../functions/webhooks/sweeper.ts';
import {
  AUTHORIZER_UPDATABLE_ATTRIBUTES,
  BOUNDED_RETURN_VALUES,
  tableStatements,
  updatableWith,
} from '../../../lib/cdk/partition-boundaries.ts';
import { createIdentity } from '../../../shared/data/identities.ts';
import { parkDelivery, restartDelivery } from '../../../shared/data/webhook-deliveries/restarts.ts';
import { createDelivery } from '../../../shared/data/webhook-deliveries/state.ts';
import { findWebhookEndpoint } from '../../../shared/data/webhook-endpoints.ts';
import type { ChangeEvent } from '../../../shared/domain/event-shape.ts';
import { putPrivateFile } from '../../../shared/files/library.ts';
import { WEBHOOK_LIMITS } from '../../../shared/limits.ts';
import { authorizer, findRoute, streamConsumer, webhookDelivery } from '../../../shared/routes.ts';
import { deliverToEndpoint } from '../../../shared/webhooks/deliverer.ts';
import { dueRequests } from '../../../shared/webhooks/sweeper.ts';
import { html, startFixtureServer } from '../../shared/autoconfigure/fixture-server.ts';
import { apiClient, useApi } from '../../support/api.ts';
import { storedDelivery, until } from '../../support/deliveries.ts';
import { eventsOf, loggedEvents, writeEvents } from '../../support/events.ts';
import { PNG } from '../../support/images.ts';
import {
  grantReport,
  observe,
  outsideGrants,
  touchedByFunction,
  unusedGrants,
} from '../../support/key-observer.ts';
import { endpointAt, startReceiver, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Every function's role reaches only what its code touches (shared/routes.ts `table`; the template's side
 * is test/lib/cdk/least-privilege.stack.test.ts). DynamoDB Local enforces no IAM, so every key each function's real
 * code touches is recorded (support/key-observer.ts): after every test file of the suite, nothing may be
 * outside its grants (support/env.ts). This file takes each function through its work (every route through
 * the local gateway, the deliverer and the sweeper on real receivers; the stream consumer has a file of its
 * own) and shows that each grant is used: none is wider than the code needs.
 */
const api = useApi();
const receivers = useReceivers();

const DELIVERER = webhookDelivery.deliverer.handler;
const SWEEPER = webhookDelivery.sweeper.handler;

describe('least privilege: each function touches what its role grants, and uses every grant', () => {
  it('every route, through the local gateway and its authorizer', async () => {
    const caller = await api.caller();
    const { client, teamId } = caller;
    const ok = async (call: Promise<{ status: number }>, status = 200) =>
      expect((await call).status).toBe(status);

    // The public routes and the one that reads nothing of the table.
    const anonymous = apiClient(api.url);
    await ok(anonymous.get('/api/v1/openapi.json'));
    await ok(anonymous.get('/docs'));
    await ok(anonymous.get('/docs/redoc.standalone.js'));
    await ok(client.get('/api/v1/contact-fields/types'));

    const field = await client.post('/api/v1/contact-fields', {
      name: 'Plan',
      tag: 'plan',
      type: 'text',
      contact_type: 'person',
    });
    expect(field.status).toBe(201);
    await ok(client.get('/api/v1/contact-fields'));
    await ok(client.get(`/api/v1/contact-fields/${field.body.id}`));
    await ok(client.put(`/api/v1/contact-fields/${field.body.id}`, { name: 'Plan name' }));
    // A misspelled key: the stored field is read before the 422 says which key was meant.
    await ok(client.put(`/api/v1/contact-fields/${field.body.id}`, { nmae: 'Plan name' }), 422);
    await ok(client.get('/api/v1/pages'));

    // An endpoint first (made again with its Idempotency-Key: the replay opens its secret), so that the
    // brand's changes are delivered to it.
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpointBody = { url: receiver.url, event_types: ['brand.updated'] };
    const endpoint = await client.post('/api/v1/webhook-endpoints', endpointBody, {
      'Idempotency-Key': 'tour',
    });
    expect(endpoint.status).toBe(201);
    const replay = await client.post('/api/v1/webhook-endpoints', endpointBody, {
      'Idempotency-Key': 'tour',
    });
    expect(replay.body.id).toBe(endpoint.body.id);
    receiver.secrets = [endpoint.body.secret];
    const endpointPath = `/api/v1/webhook-endpoints/${endpoint.body.id}`;
    await ok(client.get('/api/v1/webhook-endpoints'));
    await ok(client.get(endpointPath));

    // A brand naming a verified sender (its create checks the identity in its transaction) and a library
    // image (read from the private library, copied to the public one).
    const email = await createIdentity(teamId, 'email', 'tour@example.com', true);
    await putPrivateFile(teamId, 'tour/logo.png', PNG, 'image/png');
    const brand = await client.post('/api/v1/brands', {
      name: 'Tour',
      email_address_id: email.id,
      logo_image_path: 'tour/logo.png',
    });
    expect(brand.status).toBe(201);
    await ok(client.get('/api/v1/brands'));
    await ok(client.get(`/api/v1/brands/${brand.body.id}`));
    await ok(client.put(`/api/v1/brands/${brand.body.id}`, { name: 'Tour two' }));
    await putPrivateFile(teamId, 'tour/header.png', PNG, 'image/png');
    await ok(client.put(`/api/v1/brands/${brand.body.id}`, { header_image_path: 'tour/header.png' }));
    // Naming a sender: in a transaction that checks it.
    await ok(client.put(`/api/v1/brands/${brand.body.id}`, { email_address_id: email.id }));

    // Its change, delivered by the run's pipeline; then read, and sent again, through the event routes.
    const [delivered] = await receiver.received(1);
    const updated = (await eventsOf(client, 1, '&type=brand.updated')).find(
      (event) => event.id === delivered?.id,
    );
    expect(updated).toBeDefined();
    await ok(client.get('/api/v1/events'));
    await ok(client.get(`/api/v1/events/${updated?.id}`));
    await ok(client.get(`/api/v1/events/${updated?.id}/deliveries`));
    await ok(client.post(`/api/v1/events/${updated?.id}/redeliver`, { endpoint_id: endpoint.body.id }), 202);
    await ok(client.get(`${endpointPath}/deliveries`));
    await ok(client.get(`${endpointPath}/attempts`));
    await ok(client.post(`${endpointPath}/secret/rotate`));

    // A delivery given up, recovered; one parked while the endpoint was disabled, due again when enabled.
    const [givenUp, parked] = await writeEvents(teamId, 2);
    await createDelivery(teamId, endpoint.body.id, givenUp?.id as string, Date.now() - 60_000, 'failed');
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const recovered = await client.post(`${endpointPath}/recover`, { since });
    expect(recovered.body.deliveries).toBe(1);
    await ok(client.put(endpointPath, { disabled: true }));
    await createDelivery(teamId, endpoint.body.id, parked?.id as string, Date.now());
    expect(await parkDelivery(teamId, endpoint.body.id, parked?.id as string, Date.now())).toBe(true);
    await ok(client.put(endpointPath, { disabled: false }));
    expect((await storedDelivery(teamId, endpoint.body.id, parked?.id as string)).parked).toBeUndefined();

    // Another team's ids: 403, as the spec requires, told from none by the id index.
    const stranger = (await api.caller()).client;
    const ids = [`/api/v1/brands/${brand.body.id}`, `/api/v1/contact-fields/${field.body.id}`, endpointPath];
    for (const path of ids) {
      await ok(stranger.get(path), 403);
      await ok(stranger.put(path, { name: 'Not yours' }), 403);
      await ok(stranger.delete(path), 403);
    }
    for (const action of ['deliveries', 'attempts']) await ok(stranger.get(`${endpointPath}/${action}`), 403);
    await ok(stranger.post(`${endpointPath}/secret/rotate`), 403);
    await ok(stranger.post(`${endpointPath}/recover`, { since }), 403);
    await ok(client.delete(`/api/v1/brands/${brand.body.id}`));
    await ok(client.delete(`/api/v1/contact-fields/${field.body.id}`));
    const other = await endpointAt(caller.client, receivers, ['brand.created']);
    await ok(client.delete(`/api/v1/webhook-endpoints/${other.id}`));

    await ok(client.get('/api/v1/limits'));
    await ok(client.post('/api/v1/files', { path: 'logo.png', content_type: 'image/png', size: 68 }));
    const site = await startFixtureServer({ '/': html('<title>Observed</title>') });
    try {
      await ok(client.post('/api/v1/brands/auto-configure', { url: site.url('/') }));
      await ok(client.post('/api/v1/brands/auto-configure', { url: site.url('/none') }), 422);
    } finally {
      await site.close();
    }
  });

  it('the deliverer and the sweeper, through retries, a burst, a redelivery and a disabled endpoint', async () => {
    const caller = await api.caller();
    const { teamId } = caller;
    const a = await endpointAt(caller.client, receivers, ['brand.updated']);
    const b = await endpointAt(caller.client, receivers, ['brand.updated', 'webhook_endpoint.disabled']);
    // Written straight into the log: no stream record, so the run's own pipeline delivers none of them.
    const events = await writeEvents(teamId, 2 + WEBHOOK_LIMITS.triesInFlightPerEndpoint + 1);
    const [retried, gone, ...burst] = events.map((event) => event.id) as [string, string, ...string[]];
    let now = Date.now();
    const deliver = (endpointId: number, eventIds: string[], first?: true) =>
      observe(DELIVERER, () =>
        deliverToEndpoint(
          { team_id: teamId, endpoint_id: endpointId, event_ids: eventIds, ...(first && { first }) },
          { now: () => now, attemptsKept: 2, pruneEvery: 1 },
        ),
      );
    const sweep = async () => {
      const requests = await observe(SWEEPER, () => dueRequests(now));
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
    await sweeperHandler({ requestPayload: { team_id: teamId, endpoint_id: b.id, event_ids: [burst[0]] } });
  });

  it('each function used every grant it has, and nothing outside them', () => {
    // The stream consumer's: test/lib/cdk/least-privilege-stream.services.test.ts.
    const report = grantReport().filter((row) => row.file !== streamConsumer.handler);
    expect(report).toHaveLength(34);
    // A function without table access touched nothing; one with it did, all within its grants, each used.
    const wrong = report.filter(
      (row) => row.touched !== row.declared || row.outside.length > 0 || row.unused.length > 0,
    );
    expect(wrong).toEqual([]);
  });

  it('the check finds a grant narrower, or wider, than the code', () => {
    const handler = 'functions/brands/create.ts';
    const keys = touchedByFunction().get(handler) ?? [];
    const declared = findRoute('POST', '/api/v1/brands')?.table;
    if (!declared?.reads || !declared.writes) throw new Error('POST /api/v1/brands declares no table access');
    // Without the brands' id sequence, its reservation of ids is outside.
    expect(outsideGrants(keys, tableStatements({ ...declared, writes: ['team'] }))).toContain(
      'dynamodb:UpdateItem SEQ#brand',
    );
    // With the event log added, that read is never used.
    expect(
      unusedGrants(keys, tableStatements({ ...declared, reads: [...declared.reads, 'events'] })),
    ).toEqual(['read EVENTS#*']);
    // With the id index, which a create never queries.
    expect(unusedGrants(keys, tableStatements({ ...declared, indexes: ['idIndex'] }))).toEqual([
      'query byId',
    ]);
  });

  it('the authorizer writes only when a token was last used, asking nothing else back', () => {
    const keys = touchedByFunction().get(authorizer.handler) ?? [];
    expect(keys.map((key) => key.command).sort()).toEqual(expect.arrayContaining(['GetItem', 'UpdateItem']));
    expect(keys.filter((key) => !['GetItem', 'UpdateItem'].includes(key.command))).toEqual([]);
    const allowed = updatableWith(AUTHORIZER_UPDATABLE_ATTRIBUTES);
    for (const update of keys.filter((key) => key.command === 'UpdateItem')) {
      expect(update.attributes?.filter((name) => !allowed.includes(name))).toEqual([]);
      expect(BOUNDED_RETURN_VALUES).toContain(update.returnValues ?? 'NONE');
    }
  });
});
