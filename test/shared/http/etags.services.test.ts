import { describe, expect, it } from 'vitest';
import { type ApiClient, type ApiResult, useApi } from '../../support/api.ts';
import { roundTrips } from '../../support/round-trips.ts';

/** ETags and conditional requests on brands and contact fields, on the real local stack. */
const api = useApi();

const BRANDS = '/api/v1/brands';
const FIELDS = '/api/v1/contact-fields';
const etag = (response: ApiResult) => response.headers.get('etag') ?? '';
const stale = {
  message: 'The resource has changed since you read it: read it again.',
  error_code: 'precondition_failed',
};

const newField = (client: ApiClient, tag: string) =>
  client.post(FIELDS, { name: 'Field', tag, type: 'text', contact_type: 'person' });

describe('ETags', () => {
  it('tag every brand and field answer, change with every change, and answer 304 only while unchanged', async () => {
    const { client } = await api.caller();
    for (const [created, path] of [
      [await client.post(BRANDS, { name: 'Tagged' }), BRANDS],
      [await newField(client, 'tagged'), FIELDS],
    ] as const) {
      const url = `${path}/${created.body.id}`;
      const read = await client.get(url);
      expect(etag(read)).toMatch(/^"[^"]+"$/);
      expect(etag(read)).toBe(etag(created));
      const unchanged = await client.get(url, { 'If-None-Match': etag(read) });
      expect([unchanged.status, unchanged.text, etag(unchanged)]).toEqual([304, '', etag(read)]);

      const changed = await client.put(url, { name: 'Renamed' });
      expect(etag(changed)).not.toBe(etag(read));
      const afterChange = await client.get(url, { 'If-None-Match': etag(read) });
      expect([afterChange.status, afterChange.body.name, etag(afterChange)]).toEqual([
        200,
        'Renamed',
        etag(changed),
      ]);
    }
  });

  it("change a brand's tag when it stops being the default because another one takes over", async () => {
    const { client } = await api.caller();
    const first = await client.post(BRANDS, { name: 'First', is_default: true });
    const url = `${BRANDS}/${first.body.id}`;
    await client.post(BRANDS, { name: 'Second', is_default: true });
    const read = await client.get(url, { 'If-None-Match': etag(first) });
    expect([read.status, read.body.is_default]).toEqual([200, false]);
    expect(etag(read)).not.toBe(etag(first));
    // The tag read while it was the default is stale for a write, though the brand itself was not written.
    const refused = await client.put(url, { name: 'Late' }, { 'If-Match': etag(first) });
    expect([refused.status, refused.body]).toEqual([412, stale]);
    expect((await client.get(url)).body.name).toBe('First');
    expect((await client.delete(url, { 'If-Match': etag(first) })).status).toBe(412);
    expect((await client.put(url, { name: 'Current' }, { 'If-Match': etag(read) })).status).toBe(200);
  });
});

describe('If-Match', () => {
  it('refuses a stale tag with 412 and changes nothing; a current tag or * writes', async () => {
    const { client } = await api.caller();
    for (const [created, path, body] of [
      [await client.post(BRANDS, { name: 'Guarded', is_default: true }), BRANDS, { name: 'x' }],
      [await client.post(BRANDS, { name: 'Plain' }), BRANDS, { name: 'x', is_default: true }],
      [await newField(client, 'guarded'), FIELDS, { name: 'x' }],
      [await newField(client, 'retagged'), FIELDS, { tag: 'retagged_again' }],
    ] as const) {
      const url = `${path}/${created.body.id}`;
      const moved = await client.put(url, { name: 'Moved on' });
      for (const response of [
        await client.put(url, body, { 'If-Match': etag(created) }),
        await client.delete(url, { 'If-Match': etag(created) }),
        await client.put(url, body, { 'If-Match': '"nonsense"' }),
      ]) {
        expect([response.status, response.body]).toEqual([412, stale]);
      }
      expect((await client.get(url)).body).toEqual(moved.body);
      const written = await client.put(url, body, { 'If-Match': etag(moved) });
      expect(written.status).toBe(200);
      expect((await client.put(url, { name: 'Any' }, { 'If-Match': '*' })).status).toBe(200);
      const current = await client.get(url);
      expect((await client.delete(url, { 'If-Match': etag(current) })).status).toBe(200);
      expect((await client.get(url)).status).toBe(404);
      expect((await client.put(url, { name: 'Gone' }, { 'If-Match': '*' })).status).toBe(404);
    }
  });

  it('takes one tag: a list is a 400', async () => {
    const { client } = await api.caller();
    const created = await client.post(BRANDS, { name: 'Listed' });
    const response = await client.put(
      `${BRANDS}/${created.body.id}`,
      { name: 'x' },
      {
        'If-Match': `${etag(created)}, "other"`,
      },
    );
    expect([response.status, response.body]).toEqual([
      400,
      { message: 'If-Match takes one entity tag, or *.' },
    ]);
  });

  it('refuses an unquoted tag as malformed (400), even the current one, and changes nothing', async () => {
    const { client } = await api.caller();
    for (const path of [BRANDS, '/api/v1/contact-fields']) {
      const body =
        path === BRANDS
          ? { name: 'Unquoted' }
          : { name: 'Unquoted', tag: 'unquoted', type: 'text', contact_type: 'person' };
      const created = await client.post(path, body);
      const unquoted = etag(created).replaceAll('"', '');
      for (const send of [
        () => client.put(`${path}/${created.body.id}`, { name: 'Changed' }, { 'If-Match': unquoted }),
        () => client.delete(`${path}/${created.body.id}`, { 'If-Match': unquoted }),
      ]) {
        const response = await send();
        expect(response.status).toBe(400);
        expect(response.body.message).toMatch(/in quotes/);
      }
      expect((await client.get(`${path}/${created.body.id}`)).body.name).toBe('Unquoted');
    }
  });

  it('lets exactly one of many concurrent writes with the same tag through; the others get 412', async () => {
    const { client } = await api.caller();
    for (const created of [
      await client.post(BRANDS, { name: 'Contended' }),
      await client.post(BRANDS, { name: 'Contended default', is_default: true }),
    ]) {
      const url = `${BRANDS}/${created.body.id}`;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.put(url, { name: `Writer ${i}` }, { 'If-Match': etag(created) }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, ...Array.from({ length: 19 }, () => 412)]);
      const winner = responses.find((response) => response.status === 200);
      expect((await client.get(url)).body.name).toBe(winner?.body.name);
    }
    const field = await newField(client, 'contended');
    const url = `${FIELDS}/${field.body.id}`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.put(url, { name: `Writer ${i}` }, { 'If-Match': etag(field) }),
      ),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 412)).toHaveLength(19);
    const deletes = await Promise.all(
      Array.from({ length: 5 }, async () =>
        client.delete(url, { 'If-Match': etag(responses.find((r) => r.status === 200) as ApiResult) }),
      ),
    );
    expect(deletes.map((response) => response.status).sort()).toEqual([200, 404, 404, 404, 404]);
  });

  it('is the write’s own condition: no round trip more than the same write without it', async () => {
    const { client } = await api.caller();
    const brand = await client.post(BRANDS, { name: 'Counted' });
    const brandUrl = `${BRANDS}/${brand.body.id}`;
    const field = await newField(client, 'counted');
    const fieldUrl = `${FIELDS}/${field.body.id}`;
    const calls = async (request: () => Promise<ApiResult>) => (await roundTrips(request)).calls;

    const plain = await calls(() => client.put(brandUrl, { name: 'One' }));
    const read = await client.get(brandUrl);
    expect(await calls(() => client.put(brandUrl, { name: 'Two' }, { 'If-Match': etag(read) }))).toEqual(
      plain,
    );
    const fieldPlain = await calls(() => client.put(fieldUrl, { name: 'One' }));
    const fieldRead = await client.get(fieldUrl);
    expect(await calls(() => client.put(fieldUrl, { name: 'Two' }, { 'If-Match': etag(fieldRead) }))).toEqual(
      fieldPlain,
    );
    const current = await client.get(brandUrl);
    expect(await calls(() => client.delete(brandUrl, { 'If-Match': etag(current) }))).toEqual([
      'QueryCommand',
      'TransactWriteItemsCommand',
    ]);
    const fieldCurrent = await client.get(fieldUrl);
    expect(await calls(() => client.delete(fieldUrl, { 'If-Match': etag(fieldCurrent) }))).toEqual([
      'GetItemCommand',
      'TransactWriteItemsCommand',
    ]);
  });
});
