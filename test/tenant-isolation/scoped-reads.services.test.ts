import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createToken } from '../../shared/data/tokens.ts';
import type { ChangeEvent } from '../../shared/domain/event-shape.ts';
import { BEARER_CHALLENGE } from '../../shared/http/messages.ts';
import type { Scope } from '../../shared/scopes.ts';
import {
  type ApiClient,
  type ApiResult,
  apiClient,
  expectInsufficientScope,
  useApi,
} from '../support/api.ts';
import { storedDelivery, until } from '../support/deliveries.ts';
import { eventsOf } from '../support/events.ts';
import { receiverOf, useReceivers } from '../support/webhook-receiver.ts';

/**
 * A hostile holder of a scoped token, inside its own team: it sees nothing through the events, the
 * deliveries or a redelivery that it could not read directly (README, "Scopes", "Change events").
 *   (a) `events:read` lists and reads only the events of the families the token reads (brand.* with
 *       brands:read, …): alone, none; the filter pages as any filter does;
 *   (b) a `webhook_endpoint.disabled` event (the endpoint's view, its URL with the secret a hook URL keeps in
 *       its path) is not readable with `events:read` alone;
 *   (c) `webhooks:write` alone cannot subscribe an endpoint to brand events, point a brand subscription at
 *       a URL of its own, nor redeliver a brand event: 403 insufficient_scope naming brands:read;
 *   (d) redeliver sends an event only to an endpoint that was sent it: not to one registered after it.
 */
const api = useApi();
const receivers = useReceivers();

const receiver = () => receiverOf(receivers);

/** A client of the caller's team with a new token of these scopes. */
async function scoped(teamId: number, scopes: Scope[]): Promise<ApiClient> {
  return apiClient(api.url, await createToken(teamId, { scopes }));
}

/** Every event a client's token lists, following each Link from a first page of `limit`. */
async function walk(client: ApiClient, query: string): Promise<ChangeEvent[]> {
  const events: ChangeEvent[] = [];
  let next: string | undefined = `/api/v1/events?${query}`;
  while (next) {
    const page: ApiResult = await client.get(next);
    expect(page.status, page.text).toBe(200);
    events.push(...page.body);
    const link = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    next = link && `${new URL(link).pathname}${new URL(link).search}`;
  }
  return events;
}

const familyOf = (event: ChangeEvent) => event.type.split('.')[0];

describe('events follow the scopes of the token that reads them', () => {
  it('(a) events:read alone lists none of the brand and contact field events and reads none; with brands:read, the brand events only, page by page', async () => {
    const { client: full, teamId } = await api.caller();
    const brand = await full.post('/api/v1/brands', { name: 'Acme' });
    expect(brand.status).toBe(201);
    const field = { name: 'Secret', tag: 'secret', type: 'text', contact_type: 'person' };
    expect((await full.post('/api/v1/contact-fields', field)).status).toBe(201);
    expect((await full.put(`/api/v1/brands/${brand.body.id}`, { name: 'Acme 2' })).status).toBe(200);
    const all = await eventsOf(full, 3);
    expect(all.map(familyOf).sort()).toEqual(['brand', 'brand', 'contact_field']);

    const eventsOnly = await scoped(teamId, ['events:read']);
    const listed = await eventsOnly.get('/api/v1/events');
    expect([listed.status, listed.body, listed.headers.get('link')]).toEqual([200, [], null]);
    for (const query of ['type=brand.created', `resource=brand:${brand.body.id}`, 'limit=1']) {
      const filtered = await eventsOnly.get(`/api/v1/events?${query}`);
      expect([query, filtered.status, filtered.body]).toEqual([query, 200, []]);
    }
    for (const event of all) {
      expectInsufficientScope(
        await eventsOnly.get(`/api/v1/events/${event.id}`),
        event.type.startsWith('brand.') ? 'brands:read' : 'contact_fields:read',
        'GET /api/v1/events/{id}',
      );
    }

    const brandReader = await scoped(teamId, ['events:read', 'brands:read']);
    const brandEvents = all.filter((event) => familyOf(event) === 'brand');
    expect((await brandReader.get('/api/v1/events')).body).toEqual(brandEvents);
    // The filter is the list's own: one a page, each Link followed, no event twice and none left out.
    expect(await walk(brandReader, 'limit=1')).toEqual(brandEvents);
    // A type filter of a family it does not read is as empty as a type no event has.
    expect((await brandReader.get('/api/v1/events?type=contact_field.created')).body).toEqual([]);
    const [newest] = brandEvents;
    expect((await brandReader.get(`/api/v1/events/${newest?.id}`)).body).toEqual(newest);
    const fieldEvent = all.find((event) => familyOf(event) === 'contact_field');
    expectInsufficientScope(
      await brandReader.get(`/api/v1/events/${fieldEvent?.id}`),
      'contact_fields:read',
      'GET /api/v1/events/{id}',
    );
  });

  it('(b) the URL a webhook_endpoint.disabled event carries is not readable with events:read alone', async () => {
    const { client: full, teamId } = await api.caller();
    const gone = await receiver();
    gone.answer = () => ({ status: 410 });
    // A chat tool's hook URL: the path is the secret.
    const url = `${gone.url}/T0SECRET/B0SECRET/xoxoSecretPath`;
    const endpoint = await full.post('/api/v1/webhook-endpoints', { url, event_types: ['brand.created'] });
    expect(endpoint.status).toBe(201);
    expect((await full.post('/api/v1/brands', { name: 'Acme' })).status).toBe(201);
    await gone.received(1);
    const [notice] = await eventsOf(full, 1, '&type=webhook_endpoint.disabled');
    expect(notice?.data.object.url).toBe(url);

    const eventsOnly = await scoped(teamId, ['events:read', 'brands:read']);
    for (const path of [
      '/api/v1/events',
      '/api/v1/events?type=webhook_endpoint.disabled',
      `/api/v1/events?resource=webhook_endpoint:${endpoint.body.id}`,
    ]) {
      const listed = await eventsOnly.get(path);
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain('SecretPath');
      expect(listed.body.filter((event: ChangeEvent) => familyOf(event) !== 'brand')).toEqual([]);
    }
    const read = await eventsOnly.get(`/api/v1/events/${notice?.id}`);
    expectInsufficientScope(read, 'webhooks:read', 'GET /api/v1/events/{id}');
    expect(read.text).not.toContain('SecretPath');
    // Who may read the endpoint may read its event.
    const webhookReader = await scoped(teamId, ['events:read', 'webhooks:read']);
    expect((await webhookReader.get(`/api/v1/events/${notice?.id}`)).body).toEqual(notice);
  });
});

describe('sending events somewhere needs what reading them needs', () => {
  it('(c) webhooks:write alone cannot subscribe to brand.updated, point a brand subscription elsewhere, nor redeliver a brand event', async () => {
    const { client: full, teamId } = await api.caller();
    const team = await receiver();
    const mine = await receiver();
    const writer = await scoped(teamId, ['webhooks:write']);

    // A subscription to brand events, refused before anything is written (an Idempotency-Key included).
    const key = randomUUID();
    const subscribe = { url: mine.url, event_types: ['brand.updated'] };
    expectInsufficientScope(
      await writer.post('/api/v1/webhook-endpoints', subscribe, { 'Idempotency-Key': key }),
      'brands:read',
      'POST /api/v1/webhook-endpoints',
    );
    expect((await full.get('/api/v1/webhook-endpoints')).body).toEqual([]);
    const both = await writer.post('/api/v1/webhook-endpoints', {
      url: mine.url,
      event_types: ['webhook_endpoint.disabled', 'contact_field.deleted', 'brand.created'],
    });
    // Every scope lacking is named in the message; the first in `required_scope` and the challenge.
    expect([both.status, both.body.error_code, both.body.required_scope]).toEqual([
      403,
      'insufficient_scope',
      'contact_fields:read',
    ]);
    expect(both.body.message).toBe(
      'This token lacks the scopes contact_fields:read (or contact_fields:write) and brands:read (or ' +
        'brands:write), which POST /api/v1/webhook-endpoints needs to subscribe to contact_field.deleted, ' +
        'brand.created.',
    );
    expect(both.headers.get('www-authenticate')).toBe(
      `${BEARER_CHALLENGE}, error="insufficient_scope", scope="contact_fields:read"`,
    );
    // Its own family it may subscribe to; the refused key was kept by nobody: a token that reads brands
    // sends it and creates the endpoint (no replay of the 403).
    expect(
      (
        await writer.post('/api/v1/webhook-endpoints', {
          url: mine.url,
          event_types: ['webhook_endpoint.disabled'],
        })
      ).status,
    ).toBe(201);
    const reader = await scoped(teamId, ['webhooks:write', 'brands:read']);
    const made = await reader.post('/api/v1/webhook-endpoints', subscribe, { 'Idempotency-Key': key });
    expect([made.status, made.headers.get('idempotent-replay')]).toEqual([201, null]);

    // The team's own brand subscription (made by a token that reads brands): not widened, not moved.
    const teams = await full.post('/api/v1/webhook-endpoints', {
      url: team.url,
      event_types: ['brand.created'],
    });
    team.secrets = [teams.body.secret];
    const path = `/api/v1/webhook-endpoints/${teams.body.id}`;
    expectInsufficientScope(
      await writer.put(path, { event_types: ['brand.created', 'brand.updated'] }),
      'brands:read',
      'PUT /api/v1/webhook-endpoints/{id}',
    );
    expectInsufficientScope(
      await writer.put(path, { url: mine.url }),
      'brands:read',
      'PUT /api/v1/webhook-endpoints/{id}',
    );
    // What it changes of the endpoint without sending brand events anywhere new is its to change.
    const described = await writer.put(path, {
      url: team.url,
      event_types: ['brand.created'],
      description: 'kept',
    });
    expect([described.status, described.body.url, described.body.description]).toEqual([
      200,
      team.url,
      'kept',
    ]);

    // A brand event the team's endpoint had: its id is in the deliveries webhooks:read shows.
    expect((await full.post('/api/v1/brands', { name: 'Acme' })).status).toBe(201);
    const [delivered] = await team.received(1);
    await until(async () => (await full.get(`${path}/deliveries`)).body.length === 1);
    const deliveries = await writer.get(`${path}/deliveries`);
    expect(deliveries.body.map((delivery: { event_id: string }) => delivery.event_id)).toEqual([
      delivered?.id,
    ]);
    // What the deliveries show of the event: its id and type, and how the delivery went; no body.
    expect(Object.keys(deliveries.body[0]).sort()).toEqual(
      ['event_id', 'event_type', 'finished_at', 'last_attempt_at', 'next_try_at', 'status', 'tries'].sort(),
    );
    for (const body of [{}, { endpoint_id: teams.body.id }]) {
      expectInsufficientScope(
        await writer.post(`/api/v1/events/${delivered?.id}/redeliver`, body),
        'brands:read',
        'POST /api/v1/events/{id}/redeliver',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect([team.deliveries.length, mine.deliveries.length]).toEqual([1, 0]);
    expect((await storedDelivery(teamId, teams.body.id, delivered?.id as string)).tries).toBe(1);
  });

  it('(d) redeliver sends an event only to an endpoint that had it: not to one registered after the event', async () => {
    const { client: full, teamId } = await api.caller();
    const before = await receiver();
    const created = await full.post('/api/v1/webhook-endpoints', {
      url: before.url,
      event_types: ['brand.created'],
    });
    before.secrets = [created.body.secret];
    expect((await full.post('/api/v1/brands', { name: 'Acme' })).status).toBe(201);
    const [original] = await before.received(1);
    const event = original?.id as string;

    // Registered after the event, subscribed to everything: it was never sent it, and is not now.
    const after = await receiver();
    const later = await full.post('/api/v1/webhook-endpoints', {
      url: after.url,
      event_types: ['brand.created', 'brand.updated', 'brand.deleted'],
    });
    expect(later.status).toBe(201);
    const refused = await full.post(`/api/v1/events/${event}/redeliver`, { endpoint_id: later.body.id });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.errors.endpoint_id[0]).toContain('never sent this event');
    const toAll = await full.post(`/api/v1/events/${event}/redeliver`, {});
    expect([toAll.status, toAll.body]).toEqual([202, { endpoint_ids: [created.body.id] }]);
    // No delivery of it was made for the later endpoint either.
    expect(await storedDelivery(teamId, later.body.id, event)).toBeUndefined();
    await before.received(2);
    // Settled, so that the next redelivery is a send of its own (one asked for before the try claims the
    // delivery would be the same send).
    await until(async () => (await storedDelivery(teamId, created.body.id, event)).status === 'succeeded');

    // The endpoint that had it gets it again, with its own id, verified by its secret.
    const again = await full.post(`/api/v1/events/${event}/redeliver`, { endpoint_id: created.body.id });
    expect([again.status, again.body]).toEqual([202, { endpoint_ids: [created.body.id] }]);
    const received = await before.received(3);
    expect(received.map((delivery) => delivery.id)).toEqual([event, event, event]);
    expect(received.every((delivery) => delivery.verifiedBy.length === 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(after.deliveries).toEqual([]);
  });
});
