import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type components, createApiClient, type operations } from '../../client/index.ts';
import { clientTypes } from '../../lib/openapi/client-types.ts';
import { MESSAGES } from '../../shared/http/messages.ts';
import { newTeam, useApi } from '../support/api.ts';
import { ROOT } from '../support/processes.ts';

type Schemas = components['schemas'];
/** An operation's query parameters as the client takes them. */
type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;

const api = useApi();

describe('the typed client', () => {
  it('has the types openapi-typescript generates from the written document (run `npm run openapi`)', async () => {
    const document = readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8');
    expect(readFileSync(`${ROOT}/client/schema.d.ts`, 'utf8')).toBe(await clientTypes(document));
  });

  it('creates a brand with an Idempotency-Key, replays it, and answers another body with a 409', async () => {
    const { token } = await api.caller();
    const client = createApiClient({ baseUrl: api.url, token });
    const key = randomUUID();
    const body = { name: 'Typed Acme', primary_color: '#1a2b3c', tags: ['typed'], is_default: true };
    const headers = { 'Idempotency-Key': key };

    const created = await client.POST('/api/v1/brands', { params: { header: headers }, body });
    expectTypeOf(created.error).toEqualTypeOf<
      | Schemas['Message']
      | Schemas['InsufficientScope']
      | Schemas['Conflict']
      | Schemas['ValidationError']
      | undefined
    >();
    if (!created.data) throw new Error(`create failed: ${JSON.stringify(created.error)}`);
    expectTypeOf(created.data).toEqualTypeOf<Schemas['Brand']>();
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('Idempotent-Replay')).toBeNull();
    const { id, name, primary_color, tags, is_default, social_links } = created.data;
    expect([name, primary_color, tags, is_default, social_links]).toEqual([
      'Typed Acme',
      '#1a2b3c',
      ['typed'],
      true,
      null,
    ]);

    const replayed = await client.POST('/api/v1/brands', { params: { header: headers }, body });
    expect(replayed.response.status).toBe(201);
    expect(replayed.response.headers.get('Idempotent-Replay')).toBe('true');
    expect(replayed.data).toEqual(created.data);
    const brands = await client.GET('/api/v1/brands');
    expect(brands.data?.map((brand) => brand.id)).toEqual([id]);

    const conflict = await client.POST('/api/v1/brands', {
      params: { header: headers },
      body: { ...body, name: 'Another name' },
    });
    expect(conflict.response.status).toBe(409);
    if (!conflict.error || !('error_code' in conflict.error)) throw new Error('expected a conflict body');
    expect(conflict.error.error_code).toBe('idempotency_key_conflict');
    expect(conflict.error.message).not.toBe('');
  });

  it('lists contact fields by contact type, and reads a 422 by field', async () => {
    const { token } = await api.caller();
    const client = createApiClient({ baseUrl: api.url, token });
    const created = await client.POST('/api/v1/contact-fields', {
      body: {
        name: 'Favourite colour',
        tag: 'favourite_colour',
        type: 'pick_list',
        contact_type: 'person',
        options: ['Red'],
      },
    });
    expect(created.response.status).toBe(201);

    const people = await client.GET('/api/v1/contact-fields', {
      params: { query: { contact_type: 'person' } },
    });
    if (!people.data) throw new Error(`list failed: ${JSON.stringify(people.error)}`);
    expectTypeOf(people.data).toEqualTypeOf<Schemas['ContactFieldListItem'][]>();
    expect(people.data.map(({ tag, type, contact_type }) => [tag, type, contact_type])).toEqual([
      ['favourite_colour', 'pick_list', 'person'],
    ]);
    const organizations = await client.GET('/api/v1/contact-fields', {
      params: { query: { contact_type: 'organization' } },
    });
    expect(organizations.data).toEqual([]);

    const invalid = await client.POST('/api/v1/contact-fields', {
      body: { name: 'Colour', tag: 'Colour', type: 'pick_list', contact_type: 'person' },
    });
    expect(invalid.response.status).toBe(422);
    if (!invalid.error || !('errors' in invalid.error)) throw new Error('expected a validation body');
    expect(Object.keys(invalid.error.errors).sort()).toEqual(['options', 'tag']);
    expect(invalid.error.errors.options).toEqual(['The options field is required when type is pick_list.']);
  });

  // `limit`, `cursor` and the single-valued filters were typed (and documented) as arrays, each
  // twice (`limit` and `limit[]`): `{ limit: 2 }` did not type-check. Checked by `npm run typecheck`.
  it('takes one value for limit, cursor and the single-valued filters, a list for a repeatable filter', async () => {
    expectTypeOf<Query<'listBrands'>>().toEqualTypeOf<{ limit?: number; cursor?: string }>();
    expectTypeOf<Query<'listWebhookEndpoints'>>().toEqualTypeOf<{ limit?: number; cursor?: string }>();
    expectTypeOf<Query<'listContactFields'>>().toEqualTypeOf<{
      contact_type?: 'person' | 'organization';
      limit?: number;
      cursor?: string;
    }>();
    expectTypeOf<Query<'listWebhookEndpointDeliveries'>>().toEqualTypeOf<{
      status?: 'pending' | 'sending' | 'succeeded' | 'failed';
      limit?: number;
      cursor?: string;
    }>();
    expectTypeOf<Query<'listEvents'>['resource']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Query<'listEvents'>['type']>().toEqualTypeOf<Schemas['Event']['type'][] | undefined>();
    expectTypeOf<Query<'listPages'>>().toEqualTypeOf<{
      site_id?: number[];
      limit?: number;
      cursor?: string;
    }>();
    // Each parameter once: no `limit[]` beside `limit`.
    expectTypeOf<Extract<keyof Query<'listEvents'> | keyof Query<'listPages'>, `${string}[]`>>().toBeNever();

    // And the server reads what the client sends of them.
    const { token } = await api.caller();
    const client = createApiClient({ baseUrl: api.url, token });
    for (const name of ['Typed B', 'Typed A', 'Typed C']) {
      expect((await client.POST('/api/v1/brands', { body: { name } })).response.status).toBe(201);
    }
    const first = await client.GET('/api/v1/brands', { params: { query: { limit: 2 } } });
    expect(first.data?.map(({ name }) => name)).toEqual(['Typed A', 'Typed B']);
    const next = new URL((first.response.headers.get('link') ?? '').slice(1).split('>')[0] ?? '');
    const cursor = next.searchParams.get('cursor') ?? '';
    const rest = await client.GET('/api/v1/brands', { params: { query: { limit: 2, cursor } } });
    expect([rest.data?.map(({ name }) => name), rest.response.headers.get('link')]).toEqual([
      ['Typed C'],
      null,
    ]);
    const events = await client.GET('/api/v1/events', {
      params: { query: { type: ['brand.deleted', 'contact_field.deleted'], limit: 5 } },
    });
    expect([events.response.status, events.data]).toEqual([200, []]);
  });

  it('answers a missing brand with a 404 message', async () => {
    const { token } = await api.caller();
    const client = createApiClient({ baseUrl: api.url, token });
    const missing = await client.GET('/api/v1/brands/{id}', { params: { path: { id: 999_999_999 } } });
    expectTypeOf(missing.error).toEqualTypeOf<
      Schemas['Message'] | Schemas['InsufficientScope'] | undefined
    >();
    expect(missing.response.status).toBe(404);
    expect(missing.error?.message).not.toBe('');
    expect(missing.data).toBeUndefined();
  });

  it('reads the OpenAPI document without a token; other routes need one', async () => {
    const anonymous = createApiClient({ baseUrl: api.url });
    const document = await anonymous.GET('/api/v1/openapi.json');
    if (!document.data) throw new Error(`no document: ${document.response.status}`);
    expectTypeOf(document.data.openapi).toEqualTypeOf<string>();
    expect(document.data.openapi).toBe('3.1.0');
    expect(document.data.servers).toEqual([expect.objectContaining({ url: api.url, 'x-internal': false })]);
    expect(Object.keys(document.data.paths)).toContain('/api/v1/brands/{id}');

    const refused = await anonymous.GET('/api/v1/brands');
    expect([refused.response.status, refused.error?.message]).toEqual([401, MESSAGES.unauthenticated]);
  });

  it('reads a 403 insufficient_scope: the scope the operation needs, typed', async () => {
    const { token } = await newTeam('Typed read-only', { scopes: ['brands:read'] });
    const client = createApiClient({ baseUrl: api.url, token });
    const refused = await client.POST('/api/v1/brands', { body: { name: 'Nope' } });
    expect(refused.response.status).toBe(403);
    if (!refused.error || !('required_scope' in refused.error))
      throw new Error('expected insufficient_scope');
    expectTypeOf(refused.error.required_scope).toExtend<string>();
    expect([refused.error.error_code, refused.error.required_scope]).toEqual([
      'insufficient_scope',
      'brands:write',
    ]);
    expect((await client.GET('/api/v1/brands')).data).toEqual([]);
  });
});
