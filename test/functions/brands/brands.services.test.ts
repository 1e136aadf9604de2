import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getDefaultBrandId } from '../../../shared/data/brand-default.ts';
import { createBrand } from '../../../shared/data/brand-writes.ts';
import { listBrands } from '../../../shared/data/brands.ts';
import { dynamo, tableName } from '../../../shared/data/dynamo.ts';
import { createIdentity } from '../../../shared/data/identities.ts';
import { defaultBrandKey, LEGACY_DEFAULT_BRAND_SK, teamPk } from '../../../shared/data/keys.ts';
import { createList, getList } from '../../../shared/data/lists.ts';
import { type ApiClient, apiClient, newTeam, useApi } from '../../support/api.ts';
import { useOwnTable } from '../../support/own-table.ts';
import { admin } from '../../support/processes.ts';
import { roundTrips } from '../../support/round-trips.ts';

const api = useApi();

const BRANDS = '/api/v1/brands';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('brand create, get and list', () => {
  it('creates a brand with every field and reads it back the same way', async () => {
    const { teamId, client } = await api.caller();
    const email = await createIdentity(teamId, 'email', 'hi@example.com', true);
    const phone = await createIdentity(teamId, 'phone', '+15550100', true);
    const body = {
      name: 'Acme',
      short_description: 'Rockets and more',
      website_url: 'https://acme.example',
      primary_color: '#1A2b3c',
      secondary_color: '#ffffff',
      logo_image: 'https://cdn.example/logo.png',
      logo_square_image: 'https://cdn.example/square.png',
      header_image: 'http://cdn.example/header.png',
      footer_image: 'https://cdn.example/footer.png',
      social_share_image: 'https://cdn.example/share.png',
      email_address_id: email.id,
      phone_id: phone.id,
      social_links: [
        'https://twitter.com/acme',
        'https://www.facebook.com/acme',
        'https://blog.acme.co.uk/x',
      ],
      tags: ['retail', 'b2c', 'retail'],
    };
    const response = await client.post(BRANDS, body);
    expect(response.status).toBe(201);
    const brand = response.body;
    expect(Object.keys(brand)).toEqual([
      'id',
      'team_id',
      'name',
      'short_description',
      'website_url',
      'primary_color',
      'secondary_color',
      'is_default',
      'logo_image',
      'logo_square_image',
      'header_image',
      'footer_image',
      'social_share_image',
      'email_address_id',
      'phone_id',
      'social_links',
      'tags',
      'created_at',
      'updated_at',
    ]);
    expect(brand).toMatchObject({
      ...body,
      id: expect.any(Number),
      team_id: teamId,
      is_default: false,
      social_links: {
        x: 'https://twitter.com/acme',
        facebook: 'https://www.facebook.com/acme',
        acme: 'https://blog.acme.co.uk/x',
      },
      tags: ['retail', 'b2c'],
    });
    expect(brand.created_at).toMatch(TIMESTAMP);
    expect(brand.updated_at).toBe(brand.created_at);
    const got = await client.get(`${BRANDS}/${brand.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(brand);
  });

  it('fills omitted optional fields with null (tags with []) and accepts explicit nulls', async () => {
    const { client } = await api.caller();
    const minimal = await client.post(BRANDS, { name: '  Padded  ' });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({
      name: 'Padded',
      short_description: null,
      website_url: null,
      primary_color: null,
      is_default: false,
      logo_image: null,
      email_address_id: null,
      phone_id: null,
      social_links: null,
      tags: [],
    });
    const nulls = await client.post(BRANDS, {
      name: 'Nulls',
      short_description: null,
      website_url: null,
      primary_color: null,
      secondary_color: null,
      is_default: null,
      logo_image: null,
      logo_image_path: null,
      email_address_id: null,
      phone_id: null,
      social_links: null,
      tags: null,
      homepage_banner: 'ignored unknown field',
    });
    expect(nulls.status).toBe(201);
    expect(nulls.body).toMatchObject({ website_url: null, is_default: false, social_links: null, tags: [] });
    expect(nulls.body).not.toHaveProperty('homepage_banner');
    // An empty string on an optional field means null (Laravel's convention).
    const empty = await client.post(BRANDS, { name: 'Empty', website_url: '', primary_color: '' });
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({ website_url: null, primary_color: null });
  });

  it('lists the team brands ordered by name case-insensitively, ties by id, and no other team brands', async () => {
    const { client } = await api.caller();
    const other = await api.caller();
    await other.client.post(BRANDS, { name: 'aaa other team' });
    const ids: Record<string, number> = {};
    for (const name of ['beta', 'Alpha', 'gamma', 'alpha', 'Beta']) {
      const response = await client.post(BRANDS, { name });
      ids[name] = response.body.id;
    }
    const list = await client.get(BRANDS);
    expect(list.status).toBe(200);
    expect(list.body.map((brand: { name: string }) => brand.name)).toEqual([
      'Alpha',
      'alpha',
      'beta',
      'Beta',
      'gamma',
    ]);
    expect(list.body[0].id).toBeLessThan(list.body[1].id);
    expect(list.body[2].id).toBeLessThan(list.body[3].id);
    expect(list.body[0]).toHaveProperty('is_default', false);
    expect(await (await api.caller()).client.get(BRANDS)).toMatchObject({ status: 200, body: [] });
  });
});

describe('brand validation', () => {
  // One case per class of rule; every rule is checked on the schema in test/shared/domain/brand-input.test.ts.
  it.each([
    ['a missing name', {}, 'name', 'The name field is required.'],
    ['a name that is not a string', { name: 5 }, 'name', 'The name field must be a string.'],
    [
      'a long name',
      { name: 'n'.repeat(256) },
      'name',
      'The name field must not be greater than 255 characters.',
    ],
    [
      'a website that is no URL',
      { name: 'A', website_url: 'acme' },
      'website_url',
      'The website url field must be a valid URL.',
    ],
    [
      'two links of one network',
      { name: 'A', social_links: ['https://x.com/a', 'https://twitter.com/b'] },
      'social_links.1',
      'The social links field has more than one x link.',
    ],
  ])('refuses %s with 422 on the field', async (_case, body, field, message) => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, body);
    expect(response.status).toBe(422);
    expect(response.body.errors[field]).toContain(message);
    expect(response.body.message).toContain(message);
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('reports every failed field at once', async () => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, { primary_color: 'red', website_url: 'x' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors).sort()).toEqual(['name', 'primary_color', 'website_url']);
  });

  it('refuses a body that is no JSON object with 422', async () => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, JSON.stringify([{ name: 'A' }]));
    expect(response.status).toBe(422);
    expect(response.body.message).toBe('The request body must be a JSON object.');
  });

  it('answers 400 to malformed JSON and 413 to a body over 1 MB', async () => {
    const { client } = await api.caller();
    const malformed = await client.post(BRANDS, '{"name": "Acme",');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: expect.any(String) });
    const huge = await client.post(BRANDS, { name: 'Big', short_description: 'x'.repeat(1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ message: expect.any(String) });
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('accepts only verified identities of the team, of the right kind, checked in the write', async () => {
    const { teamId, client } = await api.caller();
    const other = await api.caller();
    const email = await createIdentity(teamId, 'email', 'ok@example.com', true);
    const phone = await createIdentity(teamId, 'phone', '+15550101', true);
    const unverified = await createIdentity(teamId, 'email', 'new@example.com', false);
    const foreign = await createIdentity(other.teamId, 'email', 'them@example.com', true);
    const refused = [
      { email_address_id: unverified.id },
      { email_address_id: foreign.id },
      { email_address_id: phone.id },
      { phone_id: email.id },
      { email_address_id: 999_999_999 },
    ];
    for (const ids of refused) {
      const response = await client.post(BRANDS, { name: 'A', ...ids });
      const field = Object.keys(ids)[0] as string;
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({
        [field]: [`The selected ${field.replaceAll('_', ' ')} is invalid.`],
      });
    }
    const both = await client.post(BRANDS, { name: 'A', email_address_id: phone.id, phone_id: email.id });
    expect(Object.keys(both.body.errors).sort()).toEqual(['email_address_id', 'phone_id']);
    expect((await client.get(BRANDS)).body).toEqual([]);
    const accepted = await client.post(BRANDS, { name: 'A', email_address_id: email.id, phone_id: phone.id });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ email_address_id: email.id, phone_id: phone.id });
  });

  it('keeps the network names of a social links map as given', async () => {
    const { client } = await api.caller();
    const response = await client.post(BRANDS, {
      name: 'A',
      social_links: { mastodon: 'https://fosstodon.org/@acme', x: 'https://x.com/acme' },
    });
    expect(response.status).toBe(201);
    expect(response.body.social_links).toEqual({
      mastodon: 'https://fosstodon.org/@acme',
      x: 'https://x.com/acme',
    });
    const empty = await client.post(BRANDS, { name: 'B', social_links: [] });
    expect(empty.body.social_links).toBeNull();
  });
});

describe('brand update', () => {
  it('changes only the supplied fields, clears an image with null and ignores read-only fields', async () => {
    const { teamId, client } = await api.caller();
    const created = (
      await client.post(BRANDS, {
        name: 'Before',
        short_description: 'kept',
        logo_image: 'https://cdn.example/logo.png',
        header_image: 'https://cdn.example/header.png',
        tags: ['a'],
      })
    ).body;
    const response = await client.put(`${BRANDS}/${created.id}`, {
      name: 'After',
      logo_image: null,
      tags: ['b', 'c'],
      id: 999,
      team_id: 999,
      created_at: '2000-01-01T00:00:00.000000Z',
      updated_at: '2000-01-01T00:00:00.000000Z',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...created,
      name: 'After',
      logo_image: null,
      tags: ['b', 'c'],
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(response.body.id).toBe(created.id);
    expect(response.body.team_id).toBe(teamId);
    expect(response.body.updated_at > created.updated_at).toBe(true);
    expect((await client.get(`${BRANDS}/${created.id}`)).body).toEqual(response.body);
  });

  it('accepts a GET body sent back unchanged', async () => {
    const { teamId, client } = await api.caller();
    const email = await createIdentity(teamId, 'email', 'a@example.com', true);
    const created = (
      await client.post(BRANDS, {
        name: 'Echo',
        is_default: true,
        email_address_id: email.id,
        social_links: ['https://github.com/acme'],
        tags: ['t'],
      })
    ).body;
    const echoed = await client.put(`${BRANDS}/${created.id}`, created);
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual({ ...created, updated_at: expect.any(String) });
  });

  it('refuses to clear or blank the name, and refuses a bad identity, changing nothing', async () => {
    const { client } = await api.caller();
    const created = (await client.post(BRANDS, { name: 'Named' })).body;
    for (const name of [null, '', '  ']) {
      const response = await client.put(`${BRANDS}/${created.id}`, { name, short_description: 'x' });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(['name']);
    }
    const identity = await client.put(`${BRANDS}/${created.id}`, {
      short_description: 'x',
      phone_id: 123_456_789,
    });
    expect(identity.status).toBe(422);
    expect(identity.body.errors).toEqual({ phone_id: ['The selected phone id is invalid.'] });
    expect((await client.get(`${BRANDS}/${created.id}`)).body).toEqual(created);
  });

  it('sets and clears identities and social links', async () => {
    const { teamId, client } = await api.caller();
    const email = await createIdentity(teamId, 'email', 'from@example.com', true);
    const created = (await client.post(BRANDS, { name: 'Ids', social_links: ['https://x.com/a'] })).body;
    const set = await client.put(`${BRANDS}/${created.id}`, {
      email_address_id: email.id,
      social_links: { x: 'https://x.com/b' },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ email_address_id: email.id, social_links: { x: 'https://x.com/b' } });
    const cleared = await client.put(`${BRANDS}/${created.id}`, {
      email_address_id: null,
      social_links: null,
    });
    expect(cleared.body).toMatchObject({ email_address_id: null, social_links: null });
  });

  it('answers an empty body with the brand unchanged', async () => {
    const { client } = await api.caller();
    const created = (await client.post(BRANDS, { name: 'Same' })).body;
    const response = await client.put(`${BRANDS}/${created.id}`, {});
    expect(response).toMatchObject({ status: 200, body: created });
  });
});

describe('misspelled keys', () => {
  const misspelled = (key: string, field: string) => `Unknown field ${key}: did you mean ${field}?`;

  it('refuses a create whose key is a misspelling of a field, naming the key and the field, and writes nothing', async () => {
    const { client } = await api.caller();
    const camel = await client.post(BRANDS, { name: 'Acme', primaryColor: '#123456' });
    expect(camel.status).toBe(422);
    expect(camel.body).toEqual({
      message: misspelled('primaryColor', 'primary_color'),
      errors: { primaryColor: [misspelled('primaryColor', 'primary_color')] },
    });
    // With the body's other errors, each misspelling under the key as sent.
    const several = await client.post(
      BRANDS,
      { Name: 'Acme', 'primary-color': '#123456', primary_colour: '#654321', website_url: 'acme' },
      { 'Idempotency-Key': 'misspelled-create' },
    );
    expect(several.status).toBe(422);
    expect(several.body.errors).toEqual({
      Name: [misspelled('Name', 'name')],
      'primary-color': [misspelled('primary-color', 'primary_color')],
      primary_colour: [misspelled('primary_colour', 'primary_color')],
      name: ['The name field is required.'],
      website_url: ['The website url field must be a valid URL.'],
    });
    expect(several.body.message).toBe(`${misspelled('Name', 'name')} (and 4 more errors)`);
    expect((await client.get(BRANDS)).body).toEqual([]);
  });

  it('refuses an update with a misspelled key, changing nothing', async () => {
    const { client } = await api.caller();
    const created = (await client.post(BRANDS, { name: 'Kept', primary_color: '#111111' })).body;
    const response = await client.put(`${BRANDS}/${created.id}`, {
      name: 'Changed',
      isDefault: true,
      secondaryColour: '#222222',
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      isDefault: [misspelled('isDefault', 'is_default')],
      secondaryColour: [misspelled('secondaryColour', 'secondary_color')],
    });
    expect((await client.get(`${BRANDS}/${created.id}`)).body).toEqual(created);
  });

  it('takes a full representation read and sent back, and ignores keys far from every field', async () => {
    const { teamId, client } = await api.caller();
    const email = await createIdentity(teamId, 'email', 'rt@example.com', true);
    const phone = await createIdentity(teamId, 'phone', '+15550199', true);
    const created = await client.post(BRANDS, {
      name: 'Round trip',
      short_description: 'All of it',
      website_url: 'https://acme.example',
      primary_color: '#123456',
      secondary_color: '#abcdef',
      is_default: true,
      logo_image: 'https://cdn.example/logo.png',
      logo_square_image: 'https://cdn.example/square.png',
      header_image: 'https://cdn.example/header.png',
      footer_image: 'https://cdn.example/footer.png',
      social_share_image: 'https://cdn.example/share.png',
      email_address_id: email.id,
      phone_id: phone.id,
      social_links: {
        facebook: 'https://facebook.com/acme',
        x: 'https://x.com/acme',
        acme: 'https://acme.example/blog',
      },
      tags: ['a', 'b'],
      // Unknown and far from every field (or nearest to a read-only one): ignored as always.
      foo: 1,
      metadata: { source: 'crm' },
      ip: '127.0.0.1',
      createdAt: 'yesterday',
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('foo');
    const read = await client.get(`${BRANDS}/${created.body.id}`);
    expect(Object.values(read.body).every((value) => value !== null)).toBe(true);
    const echoed = await client.put(`${BRANDS}/${created.body.id}`, { ...read.body, extra: true, teamId: 1 });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual({ ...read.body, updated_at: expect.any(String) });
  });

  it('refuses a social links key that misspells the network of its URL, and keeps other names as given', async () => {
    const { client } = await api.caller();
    const refused = await client.post(BRANDS, {
      name: 'Links',
      social_links: { Facebook: 'https://www.facebook.com/acme', instagam: 'https://instagram.com/acme' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      'social_links.Facebook': [misspelled('social_links.Facebook', 'social_links.facebook')],
      'social_links.instagam': [misspelled('social_links.instagam', 'social_links.instagram')],
    });
    expect((await client.get(BRANDS)).body).toEqual([]);
    // A name near a network that its URL is not of, or another name for the URL's network, is a label.
    const kept = await client.post(BRANDS, {
      name: 'Links',
      social_links: { gitlab: 'https://gitlab.com/acme', twitter: 'https://twitter.com/acme' },
    });
    expect(kept.status).toBe(201);
    expect(kept.body.social_links).toEqual({
      gitlab: 'https://gitlab.com/acme',
      twitter: 'https://twitter.com/acme',
    });
    const update = await client.put(`${BRANDS}/${kept.body.id}`, {
      social_links: { github: 'https://github.com/acme', GitHub: 'https://github.com/acme' },
    });
    expect(update.status).toBe(422);
    expect(Object.keys(update.body.errors)).toEqual(['social_links.GitHub']);
    expect((await client.get(`${BRANDS}/${kept.body.id}`)).body).toEqual(kept.body);
  });
});

describe('the default brand', () => {
  const defaults = async (client: ApiClient) =>
    (await client.get(BRANDS)).body.filter((brand: { is_default: boolean }) => brand.is_default);

  it('moves with create and update, and is_default false on the default leaves none', async () => {
    const { teamId, client } = await api.caller();
    const first = (await client.post(BRANDS, { name: 'First', is_default: true })).body;
    expect(first.is_default).toBe(true);
    expect(await getDefaultBrandId(teamId)).toBe(first.id);
    const second = (await client.post(BRANDS, { name: 'Second', is_default: true })).body;
    expect(second.is_default).toBe(true);
    expect((await client.get(`${BRANDS}/${first.id}`)).body.is_default).toBe(false);
    expect(await getDefaultBrandId(teamId)).toBe(second.id);

    const moved = await client.put(`${BRANDS}/${first.id}`, { is_default: true, name: 'First again' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ is_default: true, name: 'First again' });
    expect((await defaults(client)).map((brand: { id: number }) => brand.id)).toEqual([first.id]);

    // Unsetting a brand that is not the default changes nothing about the default.
    expect((await client.put(`${BRANDS}/${second.id}`, { is_default: false })).body.is_default).toBe(false);
    expect(await getDefaultBrandId(teamId)).toBe(first.id);

    const cleared = await client.put(`${BRANDS}/${first.id}`, { is_default: false });
    expect(cleared.body.is_default).toBe(false);
    expect(await defaults(client)).toEqual([]);
    expect(await getDefaultBrandId(teamId)).toBeUndefined();
    expect((await createList(teamId, 'email', 'No default')).brand_id).toBeNull();
  });

  it('stays exactly one when 50 parallel requests each make a different brand the default', async () => {
    const { teamId, client } = await api.caller();
    const brands = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.post(BRANDS, { name: `Brand ${i}`, is_default: i === 0 })),
    );
    const ids = brands.map((response) => response.body.id as number);
    const responses = await Promise.all(ids.map((id) => client.put(`${BRANDS}/${id}`, { is_default: true })));
    expect(responses.map((response) => response.status)).toEqual(ids.map(() => 200));
    const listed = await defaults(client);
    expect(listed).toHaveLength(1);
    expect(await getDefaultBrandId(teamId)).toBe(listed[0].id);
  });

  it('stays exactly one when brands are created as the default in parallel', async () => {
    const { teamId, client } = await api.caller();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.post(BRANDS, { name: `Created ${i}`, is_default: true })),
    );
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 201));
    const listed = await defaults(client);
    expect(listed).toHaveLength(1);
    expect(await getDefaultBrandId(teamId)).toBe(listed[0].id);
  });
});

describe('the default-brand pointer of a table made by an earlier version', () => {
  // `admin migrate` works on the whole table: this block's own keeps it to the items made here.
  useOwnTable();
  /** What an earlier version stored: the pointer in the lists' range and a flag on the brand. */
  async function legacyDefault(teamId: number, brandId: number) {
    await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: defaultBrandKey(teamId) }));
    await dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { pk: teamPk(teamId), sk: LEGACY_DEFAULT_BRAND_SK, brand_id: brandId },
      }),
    );
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: teamPk(teamId), sk: `BRAND#${String(brandId).padStart(12, '0')}` },
        UpdateExpression: 'SET is_default = :true REMOVE may_be_default, default_at_version',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
  }
  const legacyPointer = async (teamId: number) =>
    (
      await dynamo().send(
        new GetCommand({ TableName: tableName(), Key: { pk: teamPk(teamId), sk: LEGACY_DEFAULT_BRAND_SK } }),
      )
    ).Item;

  it('is moved by `admin migrate`, which is safe to run again and never overrides a newer default', async () => {
    const moved = await api.caller();
    const kept = (await moved.client.post(BRANDS, { name: 'Kept', is_default: true })).body;
    await legacyDefault(moved.teamId, kept.id);
    expect((await moved.client.get(`${BRANDS}/${kept.id}`)).body.is_default).toBe(false); // not yet moved

    const overtaken = await api.caller();
    const old = (await overtaken.client.post(BRANDS, { name: 'Old' })).body;
    await legacyDefault(overtaken.teamId, old.id);
    const newer = (await overtaken.client.post(BRANDS, { name: 'Newer', is_default: true })).body;

    const deleted = await api.caller();
    const gone = (await deleted.client.post(BRANDS, { name: 'Gone' })).body;
    await legacyDefault(deleted.teamId, gone.id);
    expect((await deleted.client.delete(`${BRANDS}/${gone.id}`)).status).toBe(200);

    // Made the default before brands said whether they are (default_at_version): migrate marks it.
    const unmarked = await api.caller();
    const plain = (await unmarked.client.post(BRANDS, { name: 'Unmarked', is_default: true })).body;
    const plainKey = { pk: teamPk(unmarked.teamId), sk: `BRAND#${String(plain.id).padStart(12, '0')}` };
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: plainKey,
        UpdateExpression: 'REMOVE default_at_version',
      }),
    );

    const run = await admin(['migrate'], {});
    expect(run.code).toBe(0);
    expect(run.json.default_brands_stamped).toBeGreaterThanOrEqual(1);
    const marked = await dynamo().send(new GetCommand({ TableName: tableName(), Key: plainKey }));
    expect(marked.Item).toMatchObject({ default_at_version: true, version: 1 }); // no new version
    expect(run.json.default_brand_pointers.moved).toBeGreaterThanOrEqual(1);
    expect(run.json.default_brand_pointers.dropped).toBeGreaterThanOrEqual(2);
    for (const team of [moved, overtaken, deleted]) expect(await legacyPointer(team.teamId)).toBeUndefined();

    expect((await moved.client.get(BRANDS)).body).toEqual([{ ...kept, is_default: true }]);
    // Its brand is marked: an update without is_default still answers that it is the default.
    expect((await moved.client.put(`${BRANDS}/${kept.id}`, { name: 'Still kept' })).body.is_default).toBe(
      true,
    );
    expect(await getDefaultBrandId(overtaken.teamId)).toBe(newer.id);
    expect(await getDefaultBrandId(deleted.teamId)).toBeUndefined();
    expect((await admin(['migrate'], {})).json).toMatchObject({
      default_brand_pointers: { moved: 0, dropped: 0 },
      default_brands_stamped: 0,
    });
  });
});

describe('a pointer left naming a deleted brand', () => {
  it('reads as no default everywhere, and the next default replaces it', async () => {
    const { teamId, client } = await api.caller();
    const doomed = (await client.post(BRANDS, { name: 'Doomed', is_default: true })).body;
    const other = (await client.post(BRANDS, { name: 'Other' })).body;
    expect((await client.delete(`${BRANDS}/${doomed.id}`)).status).toBe(200);
    expect((await client.get(BRANDS)).body).toEqual([other]);
    expect((await client.put(`${BRANDS}/${other.id}`, { is_default: false })).body.is_default).toBe(false);
    expect((await createList(teamId, 'push', 'After the delete')).brand_id).toBeNull();
    const taken = await client.put(`${BRANDS}/${other.id}`, { is_default: true });
    expect(taken.body.is_default).toBe(true);
    expect((await createList(teamId, 'push', 'After the take-over')).brand_id).toBe(other.id);
  });
});

describe('brand delete', () => {
  it('deletes for good and unlinks every list, even more than 100, and new lists then get no brand', async () => {
    const { teamId, client } = await api.caller();
    const brand = (await client.post(BRANDS, { name: 'Linked', is_default: true })).body;
    const other = (await client.post(BRANDS, { name: 'Other' })).body;
    const lists = [];
    const kinds = ['email', 'sms', 'push'] as const;
    for (let i = 0; i < 205; i += 15) {
      const batch = Array.from({ length: Math.min(15, 205 - i) }, (_, j) =>
        createList(teamId, kinds[(i + j) % 3] ?? 'email', `List ${i + j}`),
      );
      lists.push(...(await Promise.all(batch)));
    }
    expect(lists.every((list) => list.brand_id === brand.id)).toBe(true);

    const response = await client.delete(`${BRANDS}/${brand.id}`);
    expect(response).toMatchObject({ status: 200, body: { message: 'Brand deleted.' } });
    expect((await client.get(`${BRANDS}/${brand.id}`)).status).toBe(404);
    const after = await Promise.all(lists.map((list) => getList(teamId, list.id)));
    expect(after.every((list) => list !== undefined && list.brand_id === null)).toBe(true);
    expect(await getDefaultBrandId(teamId)).toBeUndefined();
    expect((await client.get(BRANDS)).body).toEqual([other]);

    const created = await admin(
      ['list', 'create', '--team', String(teamId), '--kind', 'sms', '--name', 'After'],
      {},
    );
    expect(created.code).toBe(0);
    expect(created.json).toEqual({ list_id: expect.any(Number), brand_id: null });
    expect((await client.delete(`${BRANDS}/${brand.id}`)).status).toBe(404);
  });

  it('unlinks lists that are created while the default brand is being deleted', async () => {
    const { teamId, client } = await api.caller();
    const brand = (await client.post(BRANDS, { name: 'Racing', is_default: true })).body;
    const [deleted, ...lists] = await Promise.all([
      client.delete(`${BRANDS}/${brand.id}`),
      ...Array.from({ length: 10 }, (_, i) => createList(teamId, 'email', `Race ${i}`)),
    ]);
    expect(deleted?.status).toBe(200);
    const stored = await Promise.all(lists.map((list) => getList(teamId, (list as { id: number }).id)));
    expect(stored.every((list) => list?.brand_id === null)).toBe(true);
  });

  it('deletes a brand that is not the default and leaves the default alone', async () => {
    const { teamId, client } = await api.caller();
    const kept = (await client.post(BRANDS, { name: 'Default', is_default: true })).body;
    const gone = (await client.post(BRANDS, { name: 'Gone' })).body;
    expect((await client.delete(`${BRANDS}/${gone.id}`)).status).toBe(200);
    expect(await getDefaultBrandId(teamId)).toBe(kept.id);
    expect((await client.get(BRANDS)).body).toEqual([kept]);
  });
});

describe('brand isolation', () => {
  it('answers 403 for another team brand on get, update and delete, and changes nothing', async () => {
    const owner = await api.caller();
    const intruder = await api.caller();
    const brand = (await owner.client.post(BRANDS, { name: 'Mine', is_default: true })).body;
    const path = `${BRANDS}/${brand.id}`;
    for (const response of [
      await intruder.client.get(path),
      await intruder.client.put(path, { name: 'Stolen' }),
      await intruder.client.put(path, { is_default: true }),
      await intruder.client.delete(path),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ message: 'This action is unauthorized.' });
    }
    expect((await owner.client.get(path)).body).toEqual(brand);
    expect(await getDefaultBrandId(owner.teamId)).toBe(brand.id);
    expect(await getDefaultBrandId(intruder.teamId)).toBeUndefined();
  });

  it('answers 404 for a missing brand and for a non-integer id', async () => {
    const { client } = await api.caller();
    for (const response of [
      await client.get(`${BRANDS}/987654321`),
      await client.put(`${BRANDS}/987654321`, { name: 'x' }),
      await client.put(`${BRANDS}/987654321`, { is_default: true }),
      await client.delete(`${BRANDS}/987654321`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: 'No query results for model [Brand] 987654321' });
    }
    for (const id of ['abc', '1.5', '-3', '0']) {
      const response = await client.get(`${BRANDS}/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe(`No query results for model [Brand] ${id}`);
    }
    expect(await getDefaultBrandId((await api.caller()).teamId)).toBeUndefined();
  });
});

describe('brand writes and the rest of the system', () => {
  it('takes an Idempotency-Key on create only, and writes its items in the same transaction', async () => {
    const http = apiClient(api.url, (await newTeam()).token);
    const key = { 'Idempotency-Key': 'only-on-create' };
    const keyed = await http.post(BRANDS, { name: 'Keyed' }, key);
    // The same key on an update is not an idempotency key: two different bodies both apply.
    expect((await http.put(`${BRANDS}/${keyed.body.id}`, { name: 'First' }, key)).status).toBe(200);
    const second = await http.put(`${BRANDS}/${keyed.body.id}`, { name: 'Second' }, key);
    expect([second.status, second.body.name]).toEqual([200, 'Second']);
    const { teamId } = await newTeam();
    const marker = { pk: teamPk(teamId), sk: 'TEST_MARKER' };
    const refused = (old: unknown) => Object.assign(new Error('guard refused'), { old });
    const brand = await createBrand(teamId, { name: 'With extra' }, (created) => [
      { item: { Put: { TableName: tableName(), Item: { ...marker, brand_id: created.id } } }, refused },
    ]);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: marker }));
    expect(Item?.brand_id).toBe(brand.id);
    // A refused guard item decides the outcome and leaves no brand, nor a default.
    const guard = {
      ConditionCheck: {
        TableName: tableName(),
        Key: marker,
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
    await expect(
      createBrand(teamId, { name: 'Refused', is_default: true }, () => [{ item: guard, refused }]),
    ).rejects.toMatchObject({ message: 'guard refused', old: { brand_id: { N: String(brand.id) } } });
    expect(await getDefaultBrandId(teamId)).toBeUndefined();
    expect((await listBrands(teamId)).items.map((listed) => listed.name)).toEqual(['With extra']);
  });
});

describe('DynamoDB round trips per request', () => {
  const callsOf = async (request: () => Promise<unknown>) => (await roundTrips(request)).calls;

  it('stays within the budgets', async () => {
    const { teamId, client } = await api.caller();
    const other = await api.caller();
    const email = await createIdentity(teamId, 'email', 'budget@example.com', true);
    await client.post(BRANDS, { name: 'Warm-up' }); // reserves this process's block of brand ids
    const foreign = (await other.client.post(BRANDS, { name: 'Foreign' })).body;

    expect(await callsOf(() => client.post(BRANDS, { name: 'First', is_default: true }))).toEqual([
      'TransactWriteItemsCommand',
    ]);
    const first = (await client.get(BRANDS)).body.find((brand: { name: string }) => brand.name === 'First');
    // Taking over the default also writes the brand that loses it (its change event is its own record):
    // the first try assumes none, and its failed pointer condition names the loser for the second.
    const second = await callsOf(() =>
      client.post(BRANDS, { name: 'Second', is_default: true, email_address_id: email.id }),
    );
    expect(second).toEqual(['TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
    expect(await callsOf(() => client.post(BRANDS, { name: 'Plain', email_address_id: email.id }))).toEqual([
      'TransactWriteItemsCommand',
    ]);
    const plain = (await client.get(BRANDS)).body.find((brand: { name: string }) => brand.name === 'Plain');
    expect(await callsOf(() => client.get(BRANDS))).toEqual(['QueryCommand']);
    expect(await callsOf(() => client.get(`${BRANDS}/${first.id}`))).toEqual(['BatchGetItemCommand']);
    expect(await callsOf(() => client.get(`${BRANDS}/${foreign.id}`))).toEqual([
      'BatchGetItemCommand',
      'QueryCommand',
    ]);
    // A brand the pointer never named is not the default: the update's own answer says so.
    expect(
      await callsOf(() => client.put(`${BRANDS}/${plain.id}`, { name: 'Renamed', tags: ['x'] })),
    ).toEqual(['UpdateItemCommand']);
    // One it named (First was, before Second took over) reads the pointer after its update.
    const renamed = await client.put(`${BRANDS}/${first.id}`, { name: 'First renamed' });
    expect(renamed.body).toMatchObject({ name: 'First renamed', is_default: false });
    expect(await callsOf(() => client.put(`${BRANDS}/${first.id}`, { name: 'First' }))).toEqual([
      'UpdateItemCommand',
      'GetItemCommand',
    ]);
    expect(await callsOf(() => client.put(`${BRANDS}/${foreign.id}`, { name: 'x' }))).toEqual([
      'UpdateItemCommand',
      'QueryCommand',
    ]);
    expect(await callsOf(() => client.put(`${BRANDS}/${first.id}`, { is_default: true }))).toEqual([
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    // Naming an identity needs its check in a transaction, which returns no item: read, then write.
    expect(await callsOf(() => client.put(`${BRANDS}/${first.id}`, { email_address_id: email.id }))).toEqual([
      'BatchGetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(await callsOf(() => client.delete(`${BRANDS}/${foreign.id}`))).toEqual([
      'QueryCommand',
      'TransactWriteItemsCommand',
      'QueryCommand',
    ]);
    expect(await callsOf(() => client.delete(`${BRANDS}/${plain.id}`))).toEqual([
      'QueryCommand',
      'TransactWriteItemsCommand',
    ]);

    // The default brand with 150 lists: one Query, 98 lists, then the other 52 with the delete.
    for (let i = 0; i < 150; i += 15) {
      await Promise.all(Array.from({ length: 15 }, (_, j) => createList(teamId, 'email', `L${i + j}`)));
    }
    expect(await callsOf(() => client.delete(`${BRANDS}/${first.id}`))).toEqual([
      'QueryCommand',
      'TransactWriteItemsCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(await getDefaultBrandId(teamId)).toBeUndefined();
  });
});
