import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventId, eventPosition } from '../../../shared/domain/event-shape.ts';
import { type ChangeLookups, eventsOfChange, type ItemChange } from '../../../shared/events/change-events.ts';

/** The events one stream record makes, from the item's images alone (no server: lookups are given). */
const brandItem = (id: number, fields: Record<string, unknown> = {}) => ({
  pk: 'TEAM#7',
  sk: `BRAND#${String(id).padStart(12, '0')}`,
  gsi1pk: `BRAND#${id}`,
  gsi1sk: 'BRAND',
  id,
  team_id: 7,
  name: 'Acme',
  created_at: '2026-11-26T10:00:00.000000Z',
  updated_at: '2026-11-26T10:00:00.000000Z',
  version: 1,
  ...fields,
});
const fieldItem = (id: number, fields: Record<string, unknown> = {}) => ({
  pk: 'TEAM#7',
  sk: `FIELD#${String(id).padStart(12, '0')}`,
  id,
  team_id: 7,
  name: 'Plan',
  tag: 'plan',
  type: 'text',
  contact_type: 'person',
  max_length: 255,
  created_at: '2026-11-26T10:00:00.000000Z',
  updated_at: '2026-11-26T10:00:00.000000Z',
  version: 1,
  ...fields,
});
const pointer = (brandId: number) => ({ pk: 'TEAM#7', sk: 'BRAND#DEFAULT', brand_id: brandId });

const change = (images: Pick<ItemChange, 'oldImage' | 'newImage'>): ItemChange => ({
  sequenceNumber: '000000000000000000042',
  approximateCreationSeconds: 1_795_000_000,
  ...images,
});

/** The pointer, asked only of items older than `default_at_version`; a tombstone for every delete. */
function lookups(defaultId: number | undefined) {
  return {
    defaultBrandId: async () => defaultId,
    deletion: async (_team: number, sk: string) => ({
      requestId: `deleted ${sk}`,
      at: '2026-11-26T12:30:05.123456Z',
    }),
  } satisfies ChangeLookups;
}

describe('change events of brands', () => {
  it('makes brand.created with the brand as the API answers it, its version and request', async () => {
    const item = brandItem(5, { request_id: 'req-1', primary_color: '#123456', default_at_version: true });
    const [event, ...more] = await eventsOfChange(change({ newImage: item }), lookups(undefined));
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      type: 'brand.created',
      team_id: 7,
      resource: 'brand:5',
      resource_version: 1,
      request_id: 'req-1',
      created_at: '2026-11-26T10:00:00.000000Z', // the write's time, not the record's (1,795,000,000 s)
      data: { previous_attributes: null },
    });
    expect(event?.data.object).toMatchObject({
      id: 5,
      name: 'Acme',
      primary_color: '#123456',
      is_default: true,
    });
    expect(event?.data.object).not.toHaveProperty('pk');
    expect(event?.data.object).not.toHaveProperty('version');
  });

  it('makes brand.updated with the changed fields former values, and nothing for a write that changed none', async () => {
    const before = brandItem(5, { version: 3 });
    const after = brandItem(5, { version: 4, name: 'Acme 2', updated_at: '2026-11-26T11:00:00.000000Z' });
    const [event] = await eventsOfChange(change({ oldImage: before, newImage: after }), lookups(undefined));
    expect(event?.type).toBe('brand.updated');
    expect(event?.resource_version).toBe(4);
    expect(event?.data.previous_attributes).toEqual({
      name: 'Acme',
      updated_at: '2026-11-26T10:00:00.000000Z',
    });
    expect(event?.data.object).toMatchObject({ name: 'Acme 2', is_default: false });

    const touched = brandItem(5, { version: 4, updated_at: '2026-11-26T11:00:00.000000Z', tags: [] });
    expect(await eventsOfChange(change({ oldImage: before, newImage: touched }), lookups(5))).toEqual([]);
  });

  it('renders a brand as its item says it was (default or not), asking the pointer only of older items', async () => {
    const stated = brandItem(5, { may_be_default: true, default_at_version: false });
    const [statedEvent] = await eventsOfChange(change({ newImage: stated }), lookups(5));
    expect(statedEvent?.data.object.is_default).toBe(false);
    const older = brandItem(5, { may_be_default: true });
    const [olderEvent] = await eventsOfChange(change({ newImage: older }), lookups(5));
    expect(olderEvent?.data.object.is_default).toBe(true);
    const never = brandItem(5);
    const [neverEvent] = await eventsOfChange(change({ newImage: never }), lookups(5));
    expect(neverEvent?.data.object.is_default).toBe(false);
  });

  it('makes brand.deleted with the brand as it last was, the request and time of its tombstone', async () => {
    const last = brandItem(5, { version: 2, default_at_version: true, request_id: 'req-earlier' });
    const [event] = await eventsOfChange(change({ oldImage: last }), lookups(undefined));
    expect(event).toMatchObject({
      type: 'brand.deleted',
      resource_version: 2,
      request_id: 'deleted BRAND#000000000005',
      created_at: '2026-11-26T12:30:05.123456Z',
      data: { previous_attributes: null },
    });
    expect(event?.id).toBe(`evt_7_${Date.parse('2026-11-26T12:30:05Z') / 1000}_42_0`);
    expect(event?.data.object).toMatchObject({ id: 5, is_default: true });
  });

  it("makes a default move each brand's own brand.updated, from its record; the pointer's record none", async () => {
    const at = '2026-11-26T11:00:00.000000Z';
    const lost = change({
      oldImage: brandItem(5, { version: 2, default_at_version: true, request_id: 'req-1' }),
      newImage: brandItem(5, { version: 3, default_at_version: false, request_id: 'req-9', updated_at: at }),
    });
    const won = change({
      oldImage: brandItem(6, { version: 3, request_id: 'req-2' }),
      newImage: brandItem(6, { version: 4, default_at_version: true, request_id: 'req-9', updated_at: at }),
    });
    // The pointer names neither any longer: what each record says is what counts.
    const events = [...(await eventsOfChange(lost, lookups(8))), ...(await eventsOfChange(won, lookups(8)))];
    expect(
      events.map((event) => [
        event.resource,
        event.resource_version,
        event.request_id,
        event.data.object.is_default,
        event.data.previous_attributes,
      ]),
    ).toEqual([
      ['brand:5', 3, 'req-9', false, { is_default: true, updated_at: '2026-11-26T10:00:00.000000Z' }],
      ['brand:6', 4, 'req-9', true, { is_default: false, updated_at: '2026-11-26T10:00:00.000000Z' }],
    ]);
    expect(await eventsOfChange(change({ oldImage: pointer(5), newImage: pointer(6) }), lookups(6))).toEqual(
      [],
    );
    expect(await eventsOfChange(change({ newImage: pointer(6) }), lookups(6))).toEqual([]);
  });

  it('makes no event of `admin migrate` stamping a default brand it moved the pointer of', async () => {
    const legacy = brandItem(5, { version: 4, is_default: true });
    const migrated = brandItem(5, { version: 4, may_be_default: true, default_at_version: true });
    expect(await eventsOfChange(change({ oldImage: legacy, newImage: migrated }), lookups(5))).toEqual([]);
  });
});

describe('change events of contact fields', () => {
  it('makes created, updated (changed fields only) and deleted, the field as GET answers it', async () => {
    const before = fieldItem(9);
    const after = fieldItem(9, { version: 2, name: 'Plan name', updated_at: '2026-11-26T12:00:00.000000Z' });
    const [created] = await eventsOfChange(change({ newImage: before }), lookups(undefined));
    const [updated] = await eventsOfChange(change({ oldImage: before, newImage: after }), lookups(undefined));
    const [deleted] = await eventsOfChange(change({ oldImage: after }), lookups(undefined));
    expect([created?.created_at, updated?.created_at, deleted?.created_at]).toEqual([
      '2026-11-26T10:00:00.000000Z',
      '2026-11-26T12:00:00.000000Z',
      '2026-11-26T12:30:05.123456Z',
    ]);
    expect([created?.type, updated?.type, deleted?.type]).toEqual([
      'contact_field.created',
      'contact_field.updated',
      'contact_field.deleted',
    ]);
    expect(updated?.resource).toBe('contact_field:9');
    expect(updated?.data.previous_attributes).toEqual({ name: 'Plan' });
    expect(created?.data.object).toEqual({
      id: 9,
      name: 'Plan',
      tag: 'plan',
      type: 'text',
      contact_type: 'person',
      max_length: 255,
      options: null,
      allow_multiple: false,
      integration_id: null,
    });
  });
});

describe('records that are not changes of a brand or a field', () => {
  it.each([
    ['an event', { pk: 'TEAM#7', sk: 'EVENT#000001795000000#1#0' }],
    ['an idempotency record', { pk: 'TEAM#7', sk: 'IDEMPOTENCY#POST /api/v1/brands#abc' }],
    ['a tag claim', { pk: 'TEAM#7', sk: 'FIELDTAG#plan' }],
    ['the team', { pk: 'TEAM#7', sk: 'TEAM' }],
    ['a token', { pk: 'TOKEN#abc', sk: 'TOKEN' }],
    ['a page', { pk: 'TEAM#7', sk: 'PAGE#000000000001' }],
  ])('makes none for %s', async (_what, item) => {
    expect(await eventsOfChange(change({ newImage: item }), lookups(undefined))).toEqual([]);
  });
});

describe('event ids', () => {
  it('name the team and the record, the same on every delivery, and give back the sort position', () => {
    const id = eventId(7, change({}), 1);
    expect(id).toBe('evt_7_1795000000_42_1');
    expect(eventId(7, change({}), 1)).toBe(id);
    expect(eventPosition(id)).toEqual({
      teamId: 7,
      position: `001795000000#${'42'.padStart(40, '0')}#1`,
    });
    expect(eventPosition('evt_7_x_42_1')).toBeUndefined();
    expect(eventPosition('brand:5')).toBeUndefined();
  });

  it('sort as their records do: by time, then sequence number, then ordinal', () => {
    const record = fc.record({
      seconds: fc.integer({ min: 0, max: 99_999_999_999 }),
      sequence: fc.bigInt({ min: 0n, max: 10n ** 40n - 1n }),
      ordinal: fc.integer({ min: 0, max: 1 }),
    });
    fc.assert(
      fc.property(record, record, (a, b) => {
        const position = (r: typeof a) =>
          eventPosition(
            eventId(
              3,
              { sequenceNumber: String(r.sequence), approximateCreationSeconds: r.seconds },
              r.ordinal,
            ),
          )?.position as string;
        const numeric =
          Math.sign(a.seconds - b.seconds) ||
          (a.sequence === b.sequence ? 0 : a.sequence < b.sequence ? -1 : 1) ||
          Math.sign(a.ordinal - b.ordinal);
        const textual = position(a) < position(b) ? -1 : position(a) > position(b) ? 1 : 0;
        expect(textual).toBe(numeric);
      }),
      { seed: 29, numRuns: 500 },
    );
  });
});
