import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  createContactField,
  MANAGED_FIELD_DELETE,
  MANAGED_FIELD_UPDATE,
  TAG_TAKEN,
} from '../../../shared/data/contact-fields.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { queryAll } from '../../../shared/data/items.ts';
import { tagKey, teamPk } from '../../../shared/data/keys.ts';
import { type ApiClient, useApi } from '../../support/api.ts';
import { roundTrips } from '../../support/round-trips.ts';

const api = useApi();

const FIELDS = '/api/v1/contact-fields';

async function createField(client: ApiClient, body: Record<string, unknown> = {}) {
  const response = await client.post(FIELDS, {
    name: 'Favourite colour',
    tag: 'favourite_colour',
    type: 'text',
    contact_type: 'person',
    ...body,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

const pickList = { type: 'pick_list', options: ['Red', 'Green'] };

/** Which field, if any, holds a tag: read straight from the table. */
async function tagOwner(teamId: number, tag: string): Promise<number | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: tagKey(teamId, tag), ConsistentRead: true }),
  );
  return Item?.field_id;
}

describe('POST /api/v1/contact-fields', () => {
  it('creates a field with the defaults and answers the full object', async () => {
    const { client } = await api.caller();
    const response = await client.post(FIELDS, {
      name: '  Birthday ',
      tag: 'birthday',
      type: 'date',
      contact_type: 'organization',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.any(Number),
      name: 'Birthday',
      tag: 'birthday',
      type: 'date',
      contact_type: 'organization',
      max_length: 255,
      options: null,
      allow_multiple: false,
      integration_id: null,
    });
    expect((await client.get(`${FIELDS}/${response.body.id}`)).body).toEqual(response.body);
  });

  it('keeps the options, allow_multiple and max_length it is given, and ignores read-only fields', async () => {
    const { client } = await api.caller();
    const body = await createField(client, {
      ...pickList,
      allow_multiple: true,
      max_length: 40,
      id: 1,
      integration_id: 9,
      team_id: 1,
    });
    expect(body).toMatchObject({ ...pickList, allow_multiple: true, max_length: 40, integration_id: null });
    expect(body.id).not.toBe(1);
    // An explicit null max_length means the default; empty options on a non-pick_list mean none.
    const other = await createField(client, { tag: 'other', max_length: null, options: [] });
    expect(other).toMatchObject({ max_length: 255, options: null });
  });

  // One case per class of rule; every rule is checked on the schema in test/shared/domain/contact-field-input.test.ts.
  it.each<[string, Record<string, unknown>, string, string]>([
    ['a missing name', { name: undefined }, 'name', 'The name field is required.'],
    ['a numeric name', { name: 5 }, 'name', 'The name field must be a string.'],
    ['a long tag', { tag: 't'.repeat(256) }, 'tag', 'The tag field must not be greater than 255 characters.'],
    ['an uppercase tag', { tag: 'Colour' }, 'tag', 'must start with a lowercase letter'],
    [
      'an unknown type',
      { type: 'color' },
      'type',
      'The selected type is invalid: the types are text, email, phone, number, date, datetime, boolean, url, pick_list, related.',
    ],
    [
      'a pick_list without options',
      { type: 'pick_list' },
      'options',
      'The options field is required when type is pick_list.',
    ],
  ])('refuses %s with a 422 naming the rule', async (_case, change, field, message) => {
    const { client } = await api.caller();
    const response = await client.post(FIELDS, {
      name: 'Colour',
      tag: 'colour',
      type: 'text',
      contact_type: 'person',
      ...change,
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(message);
    expect(response.body.errors[field].join(' ')).toContain(message);
    expect((await client.get(FIELDS)).body).toEqual([]);
  });

  it('refuses a body that is not an object, and answers every missing field at once', async () => {
    const { client } = await api.caller();
    const array = await client.post(FIELDS, [1, 2]);
    expect(array.status).toBe(422);
    const empty = await client.post(FIELDS);
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors).sort()).toEqual(['contact_type', 'name', 'tag', 'type']);
  });

  it('keeps a tag unique per team across both contact types, and lets other teams use it', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    await createField(client, { tag: 'industry', contact_type: 'person' });
    for (const contact_type of ['person', 'organization']) {
      const again = await client.post(FIELDS, {
        name: 'Industry',
        tag: 'industry',
        type: 'text',
        contact_type,
      });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({ message: TAG_TAKEN, errors: { tag: [TAG_TAKEN] } });
    }
    await createField(other.client, { tag: 'industry' });
    expect((await client.get(FIELDS)).body).toHaveLength(1);
  });

  it('lets exactly one of 20 parallel creates claim a tag', async () => {
    const { teamId, client } = await api.caller();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post(FIELDS, {
          name: `Racer ${i}`,
          tag: 'contested',
          type: 'text',
          contact_type: i % 2 ? 'person' : 'organization',
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(422)]);
    for (const response of responses.filter((r) => r.status === 422)) {
      expect(response.body.errors).toEqual({ tag: [TAG_TAKEN] });
    }
    const winner = responses.find((response) => response.status === 201)?.body;
    expect((await client.get(FIELDS)).body).toEqual([
      expect.objectContaining({ id: winner.id, tag: 'contested' }),
    ]);
    expect(await tagOwner(teamId, 'contested')).toBe(winner.id);
  });

  it('is an idempotent route whose create completes the key in the same transaction', async () => {
    const { teamId, client } = await api.caller();
    const body = { name: 'Size', tag: 'size', type: 'number', contact_type: 'person' };
    const first = await client.post(FIELDS, body, { 'Idempotency-Key': 'create-size-1' });
    expect(first.status).toBe(201);
    // The record the idempotency middleware keeps holds exactly what the create answered.
    const records = await queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': teamPk(teamId), ':prefix': 'IDEMPOTENCY#' },
      ConsistentRead: true,
    });
    expect(records).toEqual([
      expect.objectContaining({ response: expect.objectContaining({ status: 201, body: first.text }) }),
    ]);
    expect((await client.get(FIELDS)).body).toHaveLength(1);
  });
});

describe('GET /api/v1/contact-fields', () => {
  it('lists the team’s fields in the list shape, ordered by id, filtered by contact type', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const a = await createField(client, { tag: 'a_field', contact_type: 'organization' });
    const b = await createField(client, { tag: 'b_field', ...pickList, allow_multiple: true });
    const c = await createField(client, { tag: 'c_field', type: 'email' });
    await createField(other.client, { tag: 'theirs' });

    const all = await client.get(FIELDS);
    expect(all.status).toBe(200);
    expect(all.body.map((field: { id: number }) => field.id)).toEqual([a.id, b.id, c.id]);
    expect(all.body[1]).toEqual({
      id: b.id,
      name: 'Favourite colour',
      tag: 'b_field',
      type: 'pick_list',
      contact_type: 'person',
      max_length: 255,
      integration_id: null,
    });
    const people = await client.get(`${FIELDS}?contact_type=person`);
    expect(people.body.map((field: { tag: string }) => field.tag)).toEqual(['b_field', 'c_field']);
    const organizations = await client.get(`${FIELDS}?contact_type=organization`);
    expect(organizations.body.map((field: { tag: string }) => field.tag)).toEqual(['a_field']);
  });

  it.each([
    'contact_type=company',
    'contact_type=',
    'contact_type=Person',
    'contact_type=person&contact_type=organization',
    // One value at most, whichever the spelling: the same one twice is refused too.
    'contact_type=person&contact_type=person',
    'contact_type[]=person&contact_type=person',
  ])('refuses ?%s with a 422', async (query) => {
    const { client } = await api.caller();
    const response = await client.get(`${FIELDS}?${query}`);
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      contact_type: [
        'The selected contact type is invalid: the contact types are person, organization, given once.',
      ],
    });
  });

  it('answers an empty array for a team without fields', async () => {
    const { client } = await api.caller();
    expect(await client.get(FIELDS)).toMatchObject({ status: 200, body: [] });
  });
});

describe('GET /api/v1/contact-fields/{id}', () => {
  it('answers 404 for an unknown or non-integer id, and 403 for another team’s field', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const theirs = await createField(other.client);
    expect(await client.get(`${FIELDS}/999999999999`)).toMatchObject({
      status: 404,
      body: { message: 'No query results for model [ContactField] 999999999999' },
    });
    for (const id of ['abc', '0', '-1', '1.5'])
      expect((await client.get(`${FIELDS}/${id}`)).status).toBe(404);
    expect(await client.get(`${FIELDS}/${theirs.id}`)).toMatchObject({
      status: 403,
      body: { message: 'This action is unauthorized.' },
    });
  });

  it('still routes /types to the types endpoint', async () => {
    const { client } = await api.caller();
    const types = await client.get(`${FIELDS}/types`);
    expect(types.status).toBe(200);
    expect(types.body[0]).toEqual({ value: 'text', name: 'Text' });
  });
});

describe('PUT /api/v1/contact-fields/{id}', () => {
  it('changes only the fields sent, ignores contact_type and read-only fields, and answers the full object', async () => {
    const { client } = await api.caller();
    const field = await createField(client, { ...pickList, max_length: 30 });
    const response = await client.put(`${FIELDS}/${field.id}`, {
      name: 'Colour',
      contact_type: 'organization',
      id: 1,
      integration_id: 4,
      created_at: 'yesterday',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ...field, name: 'Colour' });
    expect((await client.get(`${FIELDS}/${field.id}`)).body).toEqual(response.body);
    // An empty body changes nothing.
    expect(await client.put(`${FIELDS}/${field.id}`, {})).toMatchObject({ status: 200, body: response.body });
  });

  it('checks the rules on the result of the update', async () => {
    const { client } = await api.caller();
    const text = await createField(client, { tag: 'text_field' });
    const url = `${FIELDS}/${text.id}`;

    const noOptions = await client.put(url, { type: 'pick_list' });
    expect(noOptions.status).toBe(422);
    expect(noOptions.body.errors).toEqual({
      options: ['The options field is required when type is pick_list.'],
    });
    expect((await client.put(url, { options: ['x'] })).body.errors).toEqual({
      options: ['The options field is only allowed when type is pick_list.'],
    });
    expect((await client.put(url, { allow_multiple: true })).status).toBe(422);
    expect((await client.get(url)).body).toEqual(text);

    const picked = await client.put(url, {
      type: 'pick_list',
      options: ['S', 'M', 'L'],
      allow_multiple: true,
    });
    expect(picked.status).toBe(200);
    expect(picked.body).toMatchObject({ type: 'pick_list', options: ['S', 'M', 'L'], allow_multiple: true });
    expect((await client.put(url, { options: ['S', 'M', 'L', 'XL'] })).body.options).toEqual([
      'S',
      'M',
      'L',
      'XL',
    ]);
    for (const options of [[], null]) {
      const emptied = await client.put(url, { options });
      expect(emptied.status).toBe(422);
      expect(emptied.body.errors).toEqual({
        options: ['The options field is required when type is pick_list.'],
      });
    }
    expect((await client.put(url, { type: 'text', options: ['S'] })).status).toBe(422);
    expect((await client.put(url, { type: 'text', allow_multiple: true })).status).toBe(422);

    // Leaving pick_list drops the options and the multiple choice that belonged to it.
    const back = await client.put(url, { type: 'number', max_length: 12 });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ type: 'number', options: null, allow_multiple: false, max_length: 12 });
    expect((await client.put(url, { max_length: null })).body.max_length).toBe(255);
  });

  // A required field cleared and a bad format; test/shared/domain/contact-field-input.test.ts checks every rule.
  it.each<[Record<string, unknown>, string]>([
    [{ name: null }, 'name'],
    [{ tag: 'Bad Tag' }, 'tag'],
  ])('refuses %j with a 422 and leaves the field unchanged', async (body, field) => {
    const { client } = await api.caller();
    const created = await createField(client);
    const response = await client.put(`${FIELDS}/${created.id}`, body);
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual([field]);
    expect((await client.get(`${FIELDS}/${created.id}`)).body).toEqual(created);
  });

  it('renames a tag: the old one is free again, the new one is taken', async () => {
    const { teamId, client } = await api.caller();
    const field = await createField(client, { tag: 'old_tag' });
    const renamed = await client.put(`${FIELDS}/${field.id}`, { tag: 'new_tag' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.tag).toBe('new_tag');
    expect(await tagOwner(teamId, 'old_tag')).toBeUndefined();
    expect(await tagOwner(teamId, 'new_tag')).toBe(field.id);

    const reuse = await createField(client, { tag: 'old_tag' });
    const clash = await client.post(FIELDS, {
      name: 'X',
      tag: 'new_tag',
      type: 'text',
      contact_type: 'organization',
    });
    expect(clash.status).toBe(422);

    const taken = await client.put(`${FIELDS}/${reuse.id}`, { tag: 'new_tag', name: 'Renamed' });
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ message: TAG_TAKEN, errors: { tag: [TAG_TAKEN] } });
    expect((await client.get(`${FIELDS}/${reuse.id}`)).body).toEqual(reuse);
    expect(await tagOwner(teamId, 'old_tag')).toBe(reuse.id);
    // Sending the field's own tag is no rename.
    expect((await client.put(`${FIELDS}/${field.id}`, { tag: 'new_tag' })).status).toBe(200);
  });

  it('lets only one of two fields racing to rename to the same tag win', async () => {
    const { teamId, client } = await api.caller();
    const [a, b] = [await createField(client, { tag: 'a_tag' }), await createField(client, { tag: 'b_tag' })];
    const responses = await Promise.all([
      client.put(`${FIELDS}/${a.id}`, { tag: 'prize' }),
      client.put(`${FIELDS}/${b.id}`, { tag: 'prize' }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 422]);
    const winner = responses[0]?.status === 200 ? a : b;
    const loser = winner === a ? b : a;
    expect(await tagOwner(teamId, 'prize')).toBe(winner.id);
    expect(await tagOwner(teamId, loser.tag)).toBe(loser.id);
    expect(await tagOwner(teamId, winner.tag)).toBeUndefined();
    expect((await client.get(`${FIELDS}/${loser.id}`)).body.tag).toBe(loser.tag);
  });

  it('keeps exactly one tag claimed when one field is renamed by 8 requests at once', async () => {
    const { teamId, client } = await api.caller();
    const field = await createField(client, { tag: 'start' });
    const tags = Array.from({ length: 8 }, (_, i) => `tag_${i}`);
    const responses = await Promise.all(tags.map((tag) => client.put(`${FIELDS}/${field.id}`, { tag })));
    for (const response of responses) expect([200, 409]).toContain(response.status);
    expect(responses.some((response) => response.status === 200)).toBe(true);
    const final = (await client.get(`${FIELDS}/${field.id}`)).body.tag;
    const owners = await Promise.all(['start', ...tags].map((tag) => tagOwner(teamId, tag)));
    expect(owners.filter((owner) => owner !== undefined)).toEqual([field.id]);
    expect(await tagOwner(teamId, final)).toBe(field.id);
  });

  it('answers 404 for unknown and non-integer ids, 403 for another team’s field and leaves it unchanged', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const theirs = await createField(other.client, { tag: 'theirs' });
    expect(await client.put(`${FIELDS}/999999999999`, { name: 'X' })).toMatchObject({
      status: 404,
      body: { message: 'No query results for model [ContactField] 999999999999' },
    });
    expect((await client.put(`${FIELDS}/abc`, { name: 'X' })).status).toBe(404);
    expect(await client.put(`${FIELDS}/${theirs.id}`, { name: 'Mine now', tag: 'stolen' })).toMatchObject({
      status: 403,
      body: { message: 'This action is unauthorized.' },
    });
    expect((await other.client.get(`${FIELDS}/${theirs.id}`)).body).toEqual(theirs);
  });
});

describe('misspelled keys', () => {
  const misspelled = (key: string, field: string) => `Unknown field ${key}: did you mean ${field}?`;

  it('refuses a create whose key misspells a field, naming the key and the field, and creates nothing', async () => {
    const { teamId, client } = await api.caller();
    const response = await client.post(FIELDS, {
      name: 'Size',
      tag: 'size',
      type: 'pick_list',
      contactType: 'person',
      option: ['S', 'M'],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      contactType: [misspelled('contactType', 'contact_type')],
      option: [misspelled('option', 'options')],
      contact_type: ['The contact type field is required.'],
    });
    expect(response.body.message).toBe(`${misspelled('contactType', 'contact_type')} (and 2 more errors)`);
    expect((await client.get(FIELDS)).body).toEqual([]);
    expect(await tagOwner(teamId, 'size')).toBeUndefined();
  });

  it('refuses an update with a misspelled key after the ownership checks, changing nothing', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const field = await createField(client, { max_length: 30 });
    const response = await client.put(`${FIELDS}/${field.id}`, { name: 'Renamed', maxLength: 10 });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ maxLength: [misspelled('maxLength', 'max_length')] });
    const read = await client.get(`${FIELDS}/${field.id}`);
    expect(read.body).toEqual(field);
    // Another team's field is still a 403, whatever the body.
    expect((await other.client.put(`${FIELDS}/${field.id}`, { maxLength: 10 })).status).toBe(403);
    expect((await client.get(`${FIELDS}/${field.id}`)).headers.get('etag')).toBe(read.headers.get('etag'));
  });

  it('takes a field read and sent back, and ignores keys far from every field', async () => {
    const { client } = await api.caller();
    const created = await client.post(FIELDS, {
      name: 'Colour',
      tag: 'colour',
      ...pickList,
      contact_type: 'organization',
      description: 'not a field',
      metadata: { a: 1 },
      integrationId: 7,
    });
    expect(created.status).toBe(201);
    const read = (await client.get(`${FIELDS}/${created.body.id}`)).body;
    expect(read).toEqual(created.body);
    const echoed = await client.put(`${FIELDS}/${read.id}`, { ...read, foo: 'bar', createdAt: 'now' });
    expect(echoed).toMatchObject({ status: 200, body: read });
    // contact_type is read-only on an update: its misspellings are ignored as it is.
    const contactType = await client.put(`${FIELDS}/${read.id}`, { contactType: 'person', name: 'Hue' });
    expect(contactType).toMatchObject({ status: 200, body: { ...read, name: 'Hue' } });
  });
});

describe('DELETE /api/v1/contact-fields/{id}', () => {
  it('removes the field and frees its tag', async () => {
    const { teamId, client } = await api.caller();
    const field = await createField(client, { tag: 'doomed' });
    const keep = await createField(client, { tag: 'kept' });
    const response = await client.delete(`${FIELDS}/${field.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await client.get(`${FIELDS}/${field.id}`)).status).toBe(404);
    expect((await client.delete(`${FIELDS}/${field.id}`)).status).toBe(404);
    expect((await client.get(FIELDS)).body.map((f: { id: number }) => f.id)).toEqual([keep.id]);
    expect(await tagOwner(teamId, 'doomed')).toBeUndefined();
    const reborn = await createField(client, { tag: 'doomed', type: 'url' });
    expect(reborn.id).not.toBe(field.id);
  });

  it('answers 404 for unknown and non-integer ids, 403 for another team’s field and leaves it in place', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const theirs = await createField(other.client, { tag: 'theirs' });
    expect(await client.delete(`${FIELDS}/999999999999`)).toMatchObject({
      status: 404,
      body: { message: 'No query results for model [ContactField] 999999999999' },
    });
    expect((await client.delete(`${FIELDS}/x1`)).status).toBe(404);
    expect(await client.delete(`${FIELDS}/${theirs.id}`)).toMatchObject({
      status: 403,
      body: { message: 'This action is unauthorized.' },
    });
    expect((await other.client.get(`${FIELDS}/${theirs.id}`)).body).toEqual(theirs);
    expect(await tagOwner(other.teamId, 'theirs')).toBe(theirs.id);
  });
});

describe('integration-managed fields', () => {
  it('can be read but not updated or deleted', async () => {
    const { teamId, client } = await api.caller();
    const field = await createContactField(teamId, {
      name: 'CRM id',
      tag: 'crm_id',
      type: 'text',
      contact_type: 'person',
      integration_id: 7,
    });
    const url = `${FIELDS}/${field.id}`;
    const shown = (await client.get(url)).body;
    expect(shown).toMatchObject({ id: field.id, tag: 'crm_id', integration_id: 7 });
    expect((await client.get(FIELDS)).body).toEqual([
      expect.objectContaining({ id: field.id, integration_id: 7 }),
    ]);

    expect(await client.put(url, { name: 'Hijacked' })).toMatchObject({
      status: 403,
      body: { message: MANAGED_FIELD_UPDATE },
    });
    // Refused before the body is looked at.
    expect((await client.put(url, { name: '' })).status).toBe(403);
    expect(await client.delete(url)).toMatchObject({ status: 403, body: { message: MANAGED_FIELD_DELETE } });
    expect(MANAGED_FIELD_UPDATE).toMatch(/managed by an integration and cannot be modified/);
    expect(MANAGED_FIELD_DELETE).toMatch(/managed by an integration and cannot be deleted/);
    expect((await client.get(url)).body).toEqual(shown);
    expect(await tagOwner(teamId, 'crm_id')).toBe(field.id);
  });
});

describe('round trips', () => {
  it('stays within the budgets: list 1, get 1, create 1, update 1 (a tag change 2), delete ≤ 2, a miss +1', async () => {
    const [{ client }, other] = await Promise.all([api.caller(), api.caller()]);
    const theirs = await createField(other.client);
    await createField(client, { tag: 'warm_up' });

    const created = await roundTrips(() => createField(client, { tag: 'counted' }));
    expect(created.calls).toEqual(['TransactWriteItemsCommand']);
    const url = `${FIELDS}/${created.result.id}`;
    expect((await roundTrips(() => client.get(FIELDS))).calls).toEqual(['QueryCommand']);
    expect((await roundTrips(() => client.get(url))).calls).toEqual(['GetItemCommand']);
    // The whole field sent back (its own tag included) is still one conditional update.
    const shown = (await client.get(url)).body;
    expect((await roundTrips(() => client.put(url, { ...shown, name: 'Counted' }))).calls).toEqual([
      'UpdateItemCommand',
    ]);
    // A tag change: the refused update returns the field, which serves as the read of the transaction.
    expect((await roundTrips(() => client.put(url, { tag: 'recounted' }))).calls).toEqual([
      'UpdateItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect((await roundTrips(() => client.get(`${FIELDS}/${theirs.id}`))).calls).toEqual([
      'GetItemCommand',
      'QueryCommand',
    ]);
    expect((await roundTrips(() => client.delete(url))).calls).toEqual([
      'GetItemCommand',
      'TransactWriteItemsCommand',
    ]);
  });
});

describe('write conflicts', () => {
  /** Fails the next `times` calls of one command as DynamoDB does when they meet an in-flight transaction. */
  function injectConflicts(command: string, times: number) {
    let left = times;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== command || left <= 0) return next(args);
        left--;
        const $metadata = {};
        if (command === 'TransactWriteItemsCommand') {
          const items = (args.input as { TransactItems: unknown[] }).TransactItems;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata,
            CancellationReasons: items.map(() => ({ Code: 'TransactionConflict' })),
          });
        }
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata });
      },
      { step: 'initialize', name: 'injectConflicts' },
    );
    return { remaining: () => left, remove: () => dynamo().middlewareStack.remove('injectConflicts') };
  }

  it('sends a transaction that met another one again, then applies its conditions', async () => {
    const { client } = await api.caller();
    let conflicts = injectConflicts('TransactWriteItemsCommand', 2);
    try {
      const field = await createField(client, { tag: 'retried' });
      expect(conflicts.remaining()).toBe(0);
      conflicts.remove();
      conflicts = injectConflicts('TransactWriteItemsCommand', 2);
      const again = await client.post(FIELDS, {
        name: 'X',
        tag: 'retried',
        type: 'text',
        contact_type: 'person',
      });
      expect(conflicts.remaining()).toBe(0);
      expect(again.status).toBe(422);
      expect((await client.get(FIELDS)).body).toEqual([expect.objectContaining({ id: field.id })]);
    } finally {
      conflicts.remove();
    }
  });

  it('re-reads and re-applies an update whose write met a concurrent transaction', async () => {
    const { client } = await api.caller();
    const field = await createField(client);
    const conflicts = injectConflicts('UpdateItemCommand', 1);
    try {
      const response = await client.put(`${FIELDS}/${field.id}`, { name: 'Retried' });
      expect(conflicts.remaining()).toBe(0);
      expect(response).toMatchObject({ status: 200, body: { ...field, name: 'Retried' } });
    } finally {
      conflicts.remove();
    }
  });
});
