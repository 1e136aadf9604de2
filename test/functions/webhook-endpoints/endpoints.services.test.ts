import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setQuota } from '../../../shared/data/quotas.ts';
import { useApi } from '../../support/api.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

/**
 * The webhook endpoints API on the local stack: create (the secret shown once), read, list, change with
 * If-Match, delete; scoped to the team; its quota; the URL checked when saved.
 */
const api = useApi();
const URL_HERE = 'http://127.0.0.1:9/hooks';

beforeAll(() => useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' }));
afterAll(() => restoreSettings());

describe('webhook endpoints', () => {
  it('creates one with its secret, which no later answer shows; reads, lists, changes and deletes it', async () => {
    const { client } = await api.caller();
    const created = await client.post('/api/v1/webhook-endpoints', {
      url: URL_HERE,
      event_types: ['brand.created', 'brand.deleted'],
      description: 'CRM sync',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"w.1"');
    expect(created.body).toMatchObject({
      url: URL_HERE,
      event_types: ['brand.created', 'brand.deleted'],
      description: 'CRM sync',
      disabled: false,
      disabled_reason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { id } = created.body;

    const read = await client.get(`/api/v1/webhook-endpoints/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
    expect((await client.get(`/api/v1/webhook-endpoints/${id}`, { 'If-None-Match': '"w.1"' })).status).toBe(
      304,
    );
    const listed = await client.get('/api/v1/webhook-endpoints');
    expect(listed.body).toEqual([read.body]);

    const changed = await client.put(
      `/api/v1/webhook-endpoints/${id}`,
      { event_types: ['contact_field.created'], description: null },
      { 'If-Match': '"w.1"' },
    );
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"w.2"');
    expect(changed.body).toMatchObject({
      url: URL_HERE,
      event_types: ['contact_field.created'],
      description: null,
    });
    const stale = await client.put(
      `/api/v1/webhook-endpoints/${id}`,
      { disabled: true },
      { 'If-Match': '"w.1"' },
    );
    expect(stale.status).toBe(412);
    expect((await client.get(`/api/v1/webhook-endpoints/${id}`)).body.disabled).toBe(false);

    const deleted = await client.delete(`/api/v1/webhook-endpoints/${id}`);
    expect(deleted.status).toBe(200);
    expect((await client.get(`/api/v1/webhook-endpoints/${id}`)).status).toBe(404);
    expect((await client.get('/api/v1/webhook-endpoints')).body).toEqual([]);
  });

  it("answers 403 for another team's endpoint on every route, and changes nothing of it", async () => {
    const owner = await api.caller();
    const other = await api.caller();
    const { body } = await owner.client.post('/api/v1/webhook-endpoints', {
      url: URL_HERE,
      event_types: ['brand.created'],
    });
    const path = `/api/v1/webhook-endpoints/${body.id}`;
    const answers = await Promise.all([
      other.client.get(path),
      other.client.put(path, { disabled: true }),
      other.client.delete(path),
      other.client.post(`${path}/secret/rotate`),
      other.client.get(`${path}/attempts`),
      other.client.post(`${path}/recover`, { since: '2026-01-01T00:00:00Z' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect((await other.client.get('/api/v1/webhook-endpoints')).body).toEqual([]);
    expect((await owner.client.get(path)).body).toMatchObject({ disabled: false });
    expect((await other.client.get('/api/v1/webhook-endpoints/999999999')).status).toBe(404);
  });

  it('refuses bodies it cannot take with 422, naming the field', async () => {
    const { client } = await api.caller();
    const refused = async (body: unknown, field: string) => {
      const answer = await client.post('/api/v1/webhook-endpoints', body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.errors), JSON.stringify(body)).toContain(field);
    };
    await refused({ url: URL_HERE, event_types: [] }, 'event_types');
    await refused({ url: URL_HERE, event_types: ['brand.renamed'] }, 'event_types');
    await refused({ url: URL_HERE, event_types: ['brand.created', 'brand.created'] }, 'event_types');
    await refused({ event_types: ['brand.created'] }, 'url');
    await refused({ url: 'ftp://example.com/x', event_types: ['brand.created'] }, 'url');
    await refused({ url: `https://example.com/${'a'.repeat(2048)}`, event_types: ['brand.created'] }, 'url');
    await refused({ url: URL_HERE, eventTypes: ['brand.created'] }, 'eventTypes');
    expect((await client.get('/api/v1/webhook-endpoints')).body).toEqual([]);
  });

  it('refuses a URL on a private address when saved, and loopback unless the local switch allows it', async () => {
    const { client } = await api.caller();
    for (const url of [
      'http://10.0.0.1/hooks',
      'http://169.254.169.254/latest',
      'http://[::ffff:10.1.1.1]/',
    ]) {
      const answer = await client.post('/api/v1/webhook-endpoints', { url, event_types: ['brand.created'] });
      expect(answer.status, url).toBe(422);
      expect(answer.body.errors.url[0], url).toMatch(
        /private address: webhooks are sent only to public addresses$/,
      );
    }
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '' });
    try {
      const loopback = await client.post('/api/v1/webhook-endpoints', {
        url: URL_HERE,
        event_types: ['brand.created'],
      });
      expect(loopback.status).toBe(422);
      expect(loopback.body.errors.url[0]).toMatch(
        /to send webhooks to a receiver on this machine, start the API with AUTOCONFIGURE_ALLOW_LOOPBACK=1$/,
      );
    } finally {
      useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    }
  });

  it('holds a team to its quota of endpoints, also when it creates them in parallel', async () => {
    const { client, teamId } = await api.caller();
    await setQuota(teamId, 'webhook_endpoints', 3);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.post('/api/v1/webhook-endpoints', { url: URL_HERE, event_types: ['brand.created'] }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    const refused = answers.filter((answer) => answer.status === 422);
    expect(refused).toHaveLength(3);
    expect(refused[0]?.body.errors.quota[0]).toMatch(/quota of 3 webhook endpoints/);
    expect((await client.get('/api/v1/webhook-endpoints')).body).toHaveLength(3);
    const limits = await client.get('/api/v1/limits');
    expect(limits.body.quotas.webhook_endpoints).toEqual({ limit: 3, used: 3 });
  });

  it('rotates the secret: a new one, shown once, the old one still signing for 24 hours', async () => {
    const { client } = await api.caller();
    const { body } = await client.post('/api/v1/webhook-endpoints', {
      url: URL_HERE,
      event_types: ['brand.created'],
    });
    const before = Date.now();
    const rotated = await client.post(`/api/v1/webhook-endpoints/${body.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(body.secret);
    const expires = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
    expect(JSON.stringify((await client.get(`/api/v1/webhook-endpoints/${body.id}`)).body)).not.toContain(
      'whsec_',
    );
  });
});
