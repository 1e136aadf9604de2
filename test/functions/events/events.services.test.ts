import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createBrand, updateBrand } from '../../../shared/data/brand-writes.ts';
import { dynamo, isoMicros, tableName } from '../../../shared/data/dynamo.ts';
import { EVENT_RETENTION_SECONDS } from '../../../shared/data/events.ts';
import { EVENT_PREFIX, eventsPk } from '../../../shared/data/keys.ts';
import { type ChangeEvent, EVENT_TYPES, eventId, eventPosition } from '../../../shared/domain/event-shape.ts';
import { INVALID_CURSOR } from '../../../shared/http/cursors.ts';
import { MESSAGES } from '../../../shared/http/messages.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { type ApiClient, useApi } from '../../support/api.ts';
import { brandObject, eventsOf, writeEvents } from '../../support/events.ts';
import { nextLink, pathOf, walkPages } from '../../support/link-pages.ts';

/**
 * The events API on the real local stack: API writes → DynamoDB Local's stream → the poller → the event
 * log → `GET /api/v1/events` and `GET /api/v1/events/{id}`. Events the stream makes are waited for
 * (polling with a deadline); paging and retention are also tested on events written straight into the log.
 */
const api = useApi();

const EVENTS = '/api/v1/events';

/** Follows the Links from `first` to the last page, running `during` after each page. */
const walk = (client: ApiClient, first: string, during?: () => Promise<void>) =>
  walkPages<ChangeEvent>(api.url, client, first, during);

const ids = (events: Array<{ id: string }>) => events.map((event) => event.id);
const positionOf = (id: string) => eventPosition(id)?.position as string;

/** Each position strictly before the one before it: newest first, no event twice. */
function expectNewestFirst(events: Array<{ id: string }>) {
  const positions = ids(events).map(positionOf);
  const later = positions.filter((position, i) => i > 0 && position >= (positions[i - 1] as string));
  expect(later, 'positions not below the one before').toEqual([]);
}

async function expectValidationError(client: ApiClient, path: string, field: string) {
  const response = await client.get(path);
  expect(response.status, `${path}: ${response.text}`).toBe(422);
  expect(Object.keys(response.body.errors), path).toEqual([field]);
}

/** Writes of both kinds through the API: six events, one of each type. */
async function sixChanges(client: ApiClient) {
  const brand = await client.post('/api/v1/brands', { name: 'Acme', primary_color: '#1a2b3c' });
  const renamed = await client.put(`/api/v1/brands/${brand.body.id}`, { name: 'Acme 2' });
  const field = await client.post('/api/v1/contact-fields', {
    name: 'Plan',
    tag: 'plan',
    type: 'text',
    contact_type: 'person',
  });
  await client.put(`/api/v1/contact-fields/${field.body.id}`, { name: 'Plan name' });
  await client.delete(`/api/v1/contact-fields/${field.body.id}`);
  await client.delete(`/api/v1/brands/${brand.body.id}`);
  expect([brand.status, renamed.status, field.status]).toEqual([201, 200, 201]);
  return { brand: brand.body, renamed: renamed.body, field: field.body };
}

describe('GET /api/v1/events', () => {
  it("lists the team's events newest first, each as GET /events/{id} answers it", async () => {
    const { teamId, client } = await api.caller();
    const { brand, renamed, field } = await sixChanges(client);
    const events = await eventsOf(client, 6);
    expect(events.map((event) => [event.type, event.resource])).toEqual([
      ['brand.deleted', `brand:${brand.id}`],
      ['contact_field.deleted', `contact_field:${field.id}`],
      ['contact_field.updated', `contact_field:${field.id}`],
      ['contact_field.created', `contact_field:${field.id}`],
      ['brand.updated', `brand:${brand.id}`],
      ['brand.created', `brand:${brand.id}`],
    ]);
    expectNewestFirst(events);
    expect(events.every((event) => event.team_id === teamId)).toBe(true);
    const [deleted, , , fieldCreated, updated, created] = events as [
      ChangeEvent,
      ChangeEvent,
      ChangeEvent,
      ChangeEvent,
      ChangeEvent,
      ChangeEvent,
    ];
    expect(created.data).toEqual({ object: brand, previous_attributes: null });
    expect(created.resource_version).toBe(1);
    expect(updated.data.object).toEqual(renamed);
    expect(updated.data.previous_attributes).toEqual({ name: 'Acme', updated_at: brand.updated_at });
    expect(updated.resource_version).toBe(2);
    expect(deleted.data).toEqual({ object: renamed, previous_attributes: null });
    expect(fieldCreated.data.object).toEqual(field);
    for (const event of events) {
      const read = await client.get(`${EVENTS}/${event.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(event);
    }
  });

  it('filters by type (repeatable, either spelling) and by resource, and both', async () => {
    const { client } = await api.caller();
    const { brand, field } = await sixChanges(client);
    const all = await eventsOf(client, 6);
    const filtered = async (query: string) => (await client.get(`${EVENTS}?${query}`)).body as ChangeEvent[];
    const only = (keep: (event: ChangeEvent) => boolean) => ids(all.filter(keep));

    expect(ids(await filtered('type=brand.updated'))).toEqual(only((e) => e.type === 'brand.updated'));
    const twoTypes = only((e) => e.type === 'brand.created' || e.type === 'contact_field.deleted');
    expect(twoTypes).toHaveLength(2);
    expect(ids(await filtered('type=brand.created&type=contact_field.deleted'))).toEqual(twoTypes);
    expect(ids(await filtered('type[]=contact_field.deleted&type[]=brand.created'))).toEqual(twoTypes);
    expect(ids(await filtered('type=brand.created&type[]=contact_field.deleted&type=brand.created'))).toEqual(
      twoTypes,
    );
    expect(ids(await filtered(EVENT_TYPES.map((type) => `type=${type}`).join('&')))).toEqual(ids(all));

    const ofBrand = only((e) => e.resource === `brand:${brand.id}`);
    expect(ofBrand).toHaveLength(3);
    expect(ids(await filtered(`resource=brand:${brand.id}`))).toEqual(ofBrand);
    const ofField = only((e) => e.resource === `contact_field:${field.id}`);
    expect(ids(await filtered(`resource[]=contact_field:${field.id}`))).toEqual(ofField);
    // A brand and a contact field may have the same number: the kind is part of the resource.
    expect(await filtered(`resource=contact_field:${brand.id}&type=brand.created`)).toEqual([]);
    expect(ids(await filtered(`resource=brand:${brand.id}&type=brand.created&type=brand.deleted`))).toEqual(
      only((e) => e.resource === `brand:${brand.id}` && e.type !== 'brand.updated'),
    );
  });

  it('refuses an unknown type or a malformed resource with a 422 naming it', async () => {
    const { client } = await api.caller();
    for (const type of ['brand.renamed', 'Brand.created', 'brand', '', 'brand.created ', 'page.created']) {
      await expectValidationError(client, `${EVENTS}?type=${encodeURIComponent(type)}`, 'type');
    }
    await expectValidationError(client, `${EVENTS}?type=brand.created&type=nope`, 'type');
    const seven = [...EVENT_TYPES, 'brand.created'].map((type) => `type=${type}`).join('&');
    await expectValidationError(client, `${EVENTS}?${seven}`, 'type');
    for (const resource of [
      'brand:0',
      'brand:01',
      'brand:-1',
      'brand:1.5',
      'brand:abc',
      'brand:',
      'brand',
      '42',
      'page:1',
      'Brand:1',
      'contact-field:1',
      ' brand:1',
      'brand:1234567890123456',
      '',
    ]) {
      await expectValidationError(client, `${EVENTS}?resource=${encodeURIComponent(resource)}`, 'resource');
    }
    await expectValidationError(client, `${EVENTS}?resource=brand:1&resource=brand:1`, 'resource');
    for (const limit of ['0', '201', 'x'])
      await expectValidationError(client, `${EVENTS}?limit=${limit}`, 'limit');
    // Both named at once; valid values are still 200.
    const both = await client.get(`${EVENTS}?type=x&resource=y`);
    expect(Object.keys(both.body.errors).sort()).toEqual(['resource', 'type']);
    expect((await client.get(`${EVENTS}?type=brand.created&resource=brand:999999999999999`)).status).toBe(
      200,
    );
  });

  it("keeps teams apart: another team's events are not listed, and by id are a 403", async () => {
    const mine = await api.caller();
    const theirs = await api.caller();
    await mine.client.post('/api/v1/brands', { name: 'Mine' });
    const brand = await theirs.client.post('/api/v1/brands', { name: 'Theirs' });
    const [their] = await eventsOf(theirs.client, 1);
    const [own] = await eventsOf(mine.client, 1);
    expect(own?.team_id).toBe(mine.teamId);
    const listed = [
      ...(await mine.client.get(EVENTS)).body,
      ...(await mine.client.get(`${EVENTS}?resource=brand:${brand.body.id}`)).body,
    ];
    expect(listed.map((event: ChangeEvent) => event.team_id)).toEqual([mine.teamId]);
    const forbidden = await mine.client.get(`${EVENTS}/${their?.id}`);
    expect([forbidden.status, forbidden.body]).toEqual([403, { message: MESSAGES.forbidden }]);
    // An id that names the other team but no event of theirs is no event: 404.
    const none = `evt_${theirs.teamId}_1_1_0`;
    expect((await mine.client.get(`${EVENTS}/${none}`)).status).toBe(404);
  });

  it('answers 404 `No query results for model [Event] <id>` to an unknown or malformed id', async () => {
    const { teamId, client } = await api.caller();
    const [written] = await writeEvents(teamId, 1);
    const { id } = written as ChangeEvent;
    expect((await client.get(`${EVENTS}/${id}`)).status).toBe(200);
    const [, team, seconds, sequence] = id.split('_') as [string, string, string, string, string];
    for (const unknown of [
      `evt_${teamId}_1_1_0`,
      `evt_${team}_${seconds}_${sequence}_1`,
      `evt_${team}_${seconds}_${Number(sequence) + 1}_0`,
      // The same event's numbers written otherwise are no id of it: one event, one id.
      `evt_0${team}_${seconds}_${sequence}_0`,
      `evt_${team}_0${seconds}_${sequence}_0`,
      `evt_${team}_${seconds}_${sequence}_00`,
      `EVT_${team}_${seconds}_${sequence}_0`,
      `${id}_0`,
      'evt_1',
      'evt_x_1_1_0',
      '42',
      'brand:42',
      'constructor',
      `evt_${'9'.repeat(16)}_1_1_0`,
      `evt_${team}_${seconds}_${'9'.repeat(41)}_0`,
    ]) {
      const response = await client.get(`${EVENTS}/${encodeURIComponent(unknown)}`);
      expect([response.status, response.body], unknown).toEqual([
        404,
        { message: `No query results for model [Event] ${unknown}` },
      ]);
    }
  });

  it('pages with limit, cursor and Link while other writes go on: no event twice, none that existed skipped', async () => {
    const { teamId, client } = await api.caller();
    const brand = await createBrand(teamId, { name: 'Walk 0' });
    for (let i = 1; i <= 24; i++) await updateBrand(teamId, brand.id, { name: `Walk ${i}` });
    const before = await eventsOf(client, 25);
    expect(before).toHaveLength(25);
    let writes = 0;
    // During the walk: the brand changes and other brands are made, after each page.
    const during = async () => {
      writes++;
      await updateBrand(teamId, brand.id, { name: `During ${writes}` });
      await createBrand(teamId, { name: `Made during ${writes}` });
    };
    const { items, pages } = await walk(client, `${EVENTS}?limit=4`, during);
    expect(writes).toBe(pages);
    expect(pages).toBeGreaterThanOrEqual(7);
    const seen = ids(items);
    expect(new Set(seen).size, 'no event twice').toBe(seen.length);
    expect(
      ids(before).filter((id) => !seen.includes(id)),
      'none skipped',
    ).toEqual([]);
    expectNewestFirst(items);

    // Once the writes made during the walk have their events too: a walk with a filter, which each Link
    // repeats, gives the filtered list.
    const settled = await eventsOf(client, before.length + 2 * writes);
    const renames = settled.filter((event) => event.type === 'brand.updated');
    expect(renames).toHaveLength(24 + writes);
    const filtered = await walk(client, `${EVENTS}?type=brand.updated&limit=3`);
    expect(ids(filtered.items)).toEqual(ids(renames));
    const first = await client.get(`${EVENTS}?type=brand.updated&resource=brand:${brand.id}&limit=2`);
    const link = new URL(nextLink(first.headers) ?? '');
    expect(link.pathname).toBe(EVENTS);
    expect(link.searchParams.getAll('type')).toEqual(['brand.updated']);
    expect(link.searchParams.getAll('resource')).toEqual([`brand:${brand.id}`]);
    expect(link.searchParams.get('limit')).toBe('2');
  });

  it(`answers ${LIMITS.listPageSize} events without limit, and links the rest (the log is never answered whole)`, async () => {
    const { teamId, client } = await api.caller();
    const written = await writeEvents(teamId, LIMITS.listPageSize + 5);
    const first = await client.get(EVENTS);
    expect(first.body).toHaveLength(LIMITS.listPageSize);
    expect(ids(first.body)).toEqual(ids(written.slice(5).reverse()));
    const next = nextLink(first.headers) ?? '';
    // The default page size is not written into the Link: it follows as the first request asked.
    expect(new URL(next).searchParams.has('limit')).toBe(false);
    const rest = await client.get(pathOf(api.url, next));
    expect(ids(rest.body)).toEqual(ids(written.slice(0, 5).reverse()));
    expect(rest.headers.get('link')).toBeNull();
    const { items, pages } = await walk(client, `${EVENTS}?limit=${LIMITS.listPageSize}`);
    expect([ids(items), pages]).toEqual([ids([...written].reverse()), 2]);
    // A log of exactly one page has no Link.
    const other = await api.caller();
    await writeEvents(other.teamId, LIMITS.listPageSize);
    const whole = await other.client.get(EVENTS);
    expect([whole.body.length, whole.headers.get('link')]).toEqual([LIMITS.listPageSize, null]);
  });

  it('binds a cursor to its list, team and filters (the same types in any order are the same filter)', async () => {
    const { teamId, client } = await api.caller();
    const other = await api.caller();
    await writeEvents(teamId, 4);
    await writeEvents(other.teamId, 4);
    for (const name of ['A', 'B']) await createBrand(teamId, { name });
    const cursorOf = async (ofClient: ApiClient, path: string) =>
      new URL(nextLink((await ofClient.get(path)).headers) ?? '').searchParams.get('cursor') as string;
    const invalid = async (path: string, as = client) => {
      const response = await as.get(path);
      expect([response.status, response.body], path).toEqual([400, { message: INVALID_CURSOR }]);
    };
    const plain = await cursorOf(client, `${EVENTS}?limit=1`);
    // The events written are brand.updated; the brands made above add brand.created events meanwhile.
    const typed = await cursorOf(client, `${EVENTS}?type=brand.updated&type=contact_field.deleted&limit=1`);
    await invalid(`${EVENTS}?cursor=${typed}`);
    await invalid(`${EVENTS}?type=brand.updated&cursor=${typed}`);
    await invalid(`${EVENTS}?resource=brand:1&cursor=${plain}`);
    await invalid(`${EVENTS}?limit=1&cursor=${plain}`, other.client);
    await invalid(`${EVENTS}?limit=1&cursor=${await cursorOf(client, '/api/v1/brands?limit=1')}`);
    const reordered = await client.get(
      `${EVENTS}?type=contact_field.deleted&type=brand.updated&type=brand.updated&cursor=${typed}`,
    );
    expect(reordered.status).toBe(200);
    expect(reordered.body).toHaveLength(3);
    expect((await client.get(`${EVENTS}?limit=2&cursor=${plain}`)).body).toHaveLength(2);
    // And an events cursor is no other list's.
    await invalid(`/api/v1/brands?limit=1&cursor=${plain}`);
  });

  it('neither lists nor reads an event past its 30 days, expired by TTL or not yet deleted', async () => {
    const { teamId, client } = await api.caller();
    const [kept] = await writeEvents(teamId, 1);
    // Written as the consumer writes it, but 31 days old: its expiry (created_at + 30 days) is past.
    const [old] = await writeEvents(teamId, 1, {
      newest: new Date(Date.now() - EVENT_RETENTION_SECONDS * 1000 - 86_400_000),
      brandId: 2,
    });
    // A recent position whose item has expired (DynamoDB deletes expired items within days).
    const seconds = Math.floor(Date.now() / 1000) - 60;
    const change = { sequenceNumber: '77', approximateCreationSeconds: seconds };
    const expiredId = eventId(teamId, change, 0);
    const position = eventPosition(expiredId)?.position as string;
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: eventsPk(teamId),
          sk: `${EVENT_PREFIX}${position}`,
          ...(kept as ChangeEvent),
          id: expiredId,
          created_at: isoMicros(new Date(seconds * 1000)),
          data: { object: brandObject(teamId, 3, 'Expired'), previous_attributes: null },
          resource: 'brand:3',
          expires_at: Math.floor(Date.now() / 1000) - 1,
        },
      }),
    );
    expect(ids((await client.get(EVENTS)).body)).toEqual([kept?.id]);
    expect((await client.get(`${EVENTS}?resource=brand:3`)).body).toEqual([]);
    expect((await client.get(`${EVENTS}/${kept?.id}`)).status).toBe(200);
    for (const id of [old?.id, expiredId]) {
      const response = await client.get(`${EVENTS}/${id}`);
      expect([response.status, response.body.message]).toEqual([
        404,
        `No query results for model [Event] ${id}`,
      ]);
    }
  });
});
