import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FixtureServer,
  file,
  OWN_FIXTURES,
  startFixtureServer,
  status,
} from '../../shared/autoconfigure/fixture-server.ts';
import { expectValidAutoConfiguration } from '../../shared/autoconfigure/valid-suggestions.ts';
import { apiClient, newTeam, startApi } from '../../support/api.ts';
import { useSettings } from '../../support/settings.ts';

/** POST /api/v1/brands/auto-configure through the gateway: suggestions that create-brand accepts as they are. */
let api: Awaited<ReturnType<typeof startApi>>;
let site: FixtureServer;
let client: ReturnType<typeof apiClient>;
beforeAll(async () => {
  api = await startApi();
  site = await startFixtureServer({
    '/': file(OWN_FIXTURES, 'brand.html'),
    '/site.webmanifest': file(OWN_FIXTURES, 'brand.webmanifest', 'application/manifest+json'),
    '/gone': status(403),
  });
  client = apiClient(api.url, (await newTeam()).token);
});
afterAll(async () => {
  await site.close();
  await api.close();
});

describe('auto-configure endpoint', () => {
  it('returns suggestions that create a brand unchanged, and creates nothing itself', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const response = await client.post('/api/v1/brands/auto-configure', { url: site.url('/') });
    expect(response.status).toBe(200);
    const { suggestions, sources, confidence } = response.body;
    expectValidAutoConfiguration(response.body);
    expect(suggestions.name).toEqual(expect.any(String));
    expect(sources.name).toBe('json-ld:Organization.name');
    // Served from 127.0.0.1, so the Organization (url northwind.example) is not shown to be this site.
    expect(confidence.name).toBe('medium');
    expect((await client.get('/api/v1/brands')).body).toEqual([]);

    const created = await client.post('/api/v1/brands', suggestions);
    expect(created.status).toBe(201);
    for (const [field, value] of Object.entries(suggestions))
      expect(created.body[field], field).toEqual(value);
  });

  it('answers a site failure with 422 naming it', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const response = await client.post('/api/v1/brands/auto-configure', { url: site.url('/gone') });
    expect(response.status).toBe(422);
    const message = 'site responded with HTTP 403';
    expect(response.body).toEqual({ message, errors: { url: [message] } });
  });

  it('refuses loopback unless the switch allows it, and names the switch', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '' });
    for (const url of [site.url('/'), site.url('/').replace('127.0.0.1', 'localhost')]) {
      const response = await client.post('/api/v1/brands/auto-configure', { url });
      expect(response.status).toBe(422);
      expect(response.body.message).toMatch(/private address: .*AUTOCONFIGURE_ALLOW_LOOPBACK=1/);
      expect(response.body.errors).toEqual({ url: [response.body.message] });
    }
  });

  it('reads a local site by the name localhost too when the switch is on', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const url = site.url('/').replace('127.0.0.1', 'localhost');
    const response = await client.post('/api/v1/brands/auto-configure', { url });
    expect(response.status).toBe(200);
    expect(response.body.suggestions.name).toEqual(expect.any(String));
  });

  it('answers every 422 with errors naming the field', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '' });
    for (const body of [{}, { url: 42 }, { url: 'ftp://example.com/' }, { url: 'http://10.0.0.1/' }]) {
      const response = await client.post('/api/v1/brands/auto-configure', body);
      expect(response.status).toBe(422);
      expect(Object.keys(response.body.errors)).toEqual(['url']);
      expect(response.body.message).toBe(response.body.errors.url[0]);
    }
  });

  it.each([
    [{}, 'The url field is required.'],
    [{ url: 42 }, 'The url field must be a string.'],
    [{ url: 'ftp://example.com/' }, /invalid URL/],
  ])('validates the body %j', async (body, message) => {
    const response = await client.post('/api/v1/brands/auto-configure', body);
    expect(response.status).toBe(422);
    expect(response.body.message).toMatch(message);
  });

  it('refuses a misspelled url key, naming it and the field', async () => {
    const response = await client.post('/api/v1/brands/auto-configure', { URL: 'https://example.com/' });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      URL: ['Unknown field URL: did you mean url?'],
      url: ['The url field is required.'],
    });
  });
});
