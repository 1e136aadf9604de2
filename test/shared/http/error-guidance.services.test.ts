import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACT_FIELD_TYPE_VALUES } from '../../../shared/domain/contact-field-types.ts';
import { BEARER_CHALLENGE, MESSAGES } from '../../../shared/http/messages.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { routeKey, routes } from '../../../shared/routes.ts';
import { apiClient, type Caller, useApi } from '../../support/api.ts';
import { eventsOf } from '../../support/events.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

/**
 * The server's side: a refusal says what would be accepted, a plausible other
 * name of a field is refused as a misspelling is, and the server holds to what its document says (415 for a
 * body that is not JSON, URLs as `format: uri` has them, Idempotency-Key of visible characters). Each class
 * is tested through several members, over HTTP against the local stack.
 */
const api = useApi();

const BRANDS = '/api/v1/brands';
const FIELDS = '/api/v1/contact-fields';
const ENDPOINTS = '/api/v1/webhook-endpoints';

let caller: Caller;
beforeAll(async () => {
  caller = await api.caller();
  // Webhook endpoints on 127.0.0.1: the URL check allows loopback only under this switch.
  useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
});
afterAll(() => restoreSettings());

const newField = (tag: string, extra: Record<string, unknown> = {}) =>
  caller.client.post(FIELDS, { name: 'Field', tag, type: 'text', contact_type: 'person', ...extra });
const newEndpoint = () =>
  caller.client.post(ENDPOINTS, { url: 'http://127.0.0.1:9/hooks', event_types: ['brand.created'] });

/** A request with a raw body and these headers (the test client always sends JSON). */
const raw = (method: string, path: string, body: string | Uint8Array | undefined, headers = {}) =>
  fetch(api.url + path, {
    method,
    headers: { Authorization: `Bearer ${caller.token}`, ...headers },
    body,
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { message: string },
  }));

describe('a refusal says what is valid', () => {
  it('an enum value outside the enum lists the valid ones, in a body and in a query', async () => {
    const type = await newField('bad_type', { type: 'colour' });
    expect(type.status).toBe(422);
    expect(type.body.errors.type).toEqual([
      `The selected type is invalid: the types are ${CONTACT_FIELD_TYPE_VALUES.join(', ')}.`,
    ]);
    const contactType = await newField('bad_contact_type', { contact_type: 'people' });
    expect(contactType.body.errors.contact_type).toEqual([
      'The selected contact type is invalid: the contact types are person, organization.',
    ]);
    const query = await caller.client.get(`${FIELDS}?contact_type=people`);
    expect(query.status).toBe(422);
    expect(query.body.errors.contact_type[0]).toContain('the contact types are person, organization');
  });

  it("recover's since names the format it takes", async () => {
    const endpoint = await newEndpoint();
    expect(endpoint.status).toBe(201);
    const recovered = await caller.client.post(`${ENDPOINTS}/${endpoint.body.id}/recover`, {
      since: 'yesterday',
    });
    expect(recovered.status).toBe(422);
    expect(recovered.body.errors.since[0]).toMatch(/ISO 8601 .* e\.g\. 2026-11-25T09:46:31Z/);
  });

  it('a 413 names the limit', async () => {
    const huge = await caller.client.post(BRANDS, { name: 'x'.repeat(LIMITS.bodyBytes) });
    expect([huge.status, huge.body]).toEqual([413, { message: MESSAGES.tooLarge }]);
    expect(huge.body.message).toContain('1 MiB (1,048,576 bytes)');
  });

  it.each([
    ['{"name":}', 'breaks at line 1, column 9 (character 9)'],
    ['{"name":"Acme",}', 'breaks at line 1, column 16 (character 16)'],
    ['{\n  "name": "Acme"\n  "tags": []\n}', 'breaks at line 3, column 3 (character 22)'],
    ['{"name":"Acme"', 'ends too soon'],
    ["{'name':'Acme'}", 'breaks at line 1, column 2 (character 2)'],
  ])('malformed JSON %j says where it breaks', async (body, where) => {
    const response = await caller.client.post(BRANDS, body);
    expect([response.status, response.body]).toEqual([
      400,
      { message: `The request body is not valid JSON: it ${where}.` },
    ]);
  });

  it('a URL without its scheme is told which one it probably meant: body fields and the guarded client', async () => {
    const brand = await caller.client.post(BRANDS, { name: 'Acme', website_url: 'example.com' });
    expect(brand.body.errors.website_url).toEqual([
      'The website url field must be a valid URL. Did you mean https://example.com?',
    ]);
    const image = await caller.client.post(BRANDS, { name: 'Acme', logo_image: 'cdn.example.com/logo.png' });
    expect(image.body.errors.logo_image[0]).toContain('Did you mean https://cdn.example.com/logo.png?');
    // A file's name is no host: no suggestion.
    const file = await caller.client.post(BRANDS, { name: 'Acme', header_image: 'header.png' });
    expect(file.body.errors.header_image).toEqual(['The header image field must be a valid URL.']);
    const site = await caller.client.post(`${BRANDS}/auto-configure`, { url: 'example.com' });
    expect(site.status).toBe(422);
    expect(site.body.errors.url[0]).toContain('Did you mean https://example.com?');
    const hook = await caller.client.post(ENDPOINTS, {
      url: 'hooks.example.com/in',
      event_types: ['brand.created'],
    });
    expect(hook.status).toBe(422);
    expect(hook.body.errors.url[0]).toContain('Did you mean https://hooks.example.com/in?');
  });

  it.each([
    ['no header', {}],
    ['another scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['an unknown token', { Authorization: `Bearer tm_${'A'.repeat(43)}` }],
  ])('every 401 says to send Authorization: Bearer <token> (%s)', async (_name, headers) => {
    const response = await fetch(`${api.url}${BRANDS}`, { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(BEARER_CHALLENGE);
    const { message } = (await response.json()) as { message: string };
    expect(message).toContain('Authorization: Bearer <token>');
    expect(message.startsWith('Unauthenticated.')).toBe(true);
  });

  it('a path outside the API (GET /, GET /brands) is a 404 pointing to /api/v1 and /docs', async () => {
    for (const path of ['/', '/brands', '/api/brands', '/api/v1/brand']) {
      const response = await apiClient(api.url, caller.token).get(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body.message).toContain('/api/v1');
      expect(response.body.message).toContain('/docs');
    }
  });

  it("an unknown id keeps the spec's wording (section 7: no query results for the model)", async () => {
    const brand = await caller.client.get(`${BRANDS}/999999999`);
    expect([brand.status, brand.body]).toEqual([
      404,
      { message: 'No query results for model [Brand] 999999999' },
    ]);
    const field = await caller.client.get(`${FIELDS}/999999999`);
    expect(field.body).toEqual({ message: 'No query results for model [ContactField] 999999999' });
  });

  it('a weak If-Match is a 400 saying strong tags are required, on every tagged resource', async () => {
    const brand = await caller.client.post(BRANDS, { name: 'Weakly tagged' });
    const field = await newField('weakly_tagged');
    const endpoint = await newEndpoint();
    for (const [path, created, body] of [
      [`${BRANDS}/${brand.body.id}`, brand, { name: 'x' }],
      [`${FIELDS}/${field.body.id}`, field, { name: 'x' }],
      [`${ENDPOINTS}/${endpoint.body.id}`, endpoint, { description: 'x' }],
    ] as const) {
      const weak = { 'If-Match': `W/${created.headers.get('etag')}` };
      for (const response of [
        await caller.client.put(path, body, weak),
        await caller.client.delete(path, weak),
      ]) {
        expect([path, response.status]).toEqual([path, 400]);
        expect(response.body.message).toMatch(/strong entity tag/);
      }
      // Nothing changed: the same version.
      expect((await caller.client.get(path)).headers.get('etag')).toBe(created.headers.get('etag'));
    }
  });
});

describe('a plausible other name of a field is refused as a misspelling is', () => {
  it.each([
    ['color', '#112233', 'primary_color'],
    ['colour', '#112233', 'primary_color'],
    ['logo', 'https://cdn.example.com/a.png', 'logo_image'],
    ['logo_url', 'https://cdn.example.com/a.png', 'logo_image'],
    ['logoUrl', 'https://cdn.example.com/a.png', 'logo_image'],
    ['description', 'A company', 'short_description'],
    ['website', 'https://acme.example', 'website_url'],
  ])('%j on a brand: 422 suggesting %s, nothing written', async (key, value, field) => {
    const before = (await caller.client.get(BRANDS)).body.length;
    const response = await caller.client.post(BRANDS, { name: 'Synonym', [key]: value });
    expect([response.status, response.body.errors]).toEqual([
      422,
      { [key]: [`Unknown field ${key}: did you mean ${field}?`] },
    ]);
    expect((await caller.client.get(BRANDS)).body.length).toBe(before);
  });

  it('multiple on a contact field, events on a webhook endpoint, in a PUT as in a POST', async () => {
    const field = await newField('synonyms', { type: 'pick_list', options: ['a', 'b'], multiple: true });
    expect(field.body.errors).toEqual({ multiple: ['Unknown field multiple: did you mean allow_multiple?'] });
    const created = await newField('synonyms', { type: 'pick_list', options: ['a', 'b'] });
    const put = await caller.client.put(`${FIELDS}/${created.body.id}`, { multiple: true });
    expect([put.status, put.body.errors]).toEqual([
      422,
      { multiple: ['Unknown field multiple: did you mean allow_multiple?'] },
    ]);
    const endpoint = await caller.client.post(ENDPOINTS, {
      url: 'http://127.0.0.1:9/x',
      events: ['brand.created'],
    });
    expect(endpoint.body.errors.events).toEqual(['Unknown field events: did you mean event_types?']);
  });

  it('keys that resemble nothing stay ignored', async () => {
    const response = await caller.client.post(BRANDS, { name: 'Ignored', foo: 1, metadata: { a: 1 } });
    expect(response.status).toBe(201);
    expect(response.body).not.toHaveProperty('foo');
  });
});

describe('the server holds to the document', () => {
  it('every route that reads a body (POST, PUT) lists 415 among its statuses, so the document names it', () => {
    const missing = routes.filter(
      (route) => ['POST', 'PUT'].includes(route.method) && !route.statuses.includes(415),
    );
    expect(missing.map(routeKey)).toEqual([]);
  });

  it.each([
    ['text/plain', 'POST', BRANDS],
    ['application/x-www-form-urlencoded', 'POST', BRANDS],
    ['text/plain; charset=utf-8', 'POST', FIELDS],
    ['application/xml', 'PUT', `${BRANDS}/1`],
  ])('a %s body to %s %s is 415, nothing written', async (type, method, path) => {
    const before = (await caller.client.get(BRANDS)).body.length;
    const response = await raw(method, path, '{"name":"Plain"}', { 'Content-Type': type });
    expect(response.status).toBe(415);
    expect(response.body.message).toContain('Content-Type: application/json');
    expect((await caller.client.get(BRANDS)).body.length).toBe(before);
  });

  it('a JSON body is read with any JSON media type, or without a Content-Type', async () => {
    for (const headers of [
      { 'Content-Type': 'application/json; charset=utf-8' },
      { 'Content-Type': 'application/merge-patch+json' },
      {},
    ]) {
      const response = await raw('POST', BRANDS, new TextEncoder().encode('{"name":"Typed"}'), headers);
      expect([headers, response.status]).toEqual([headers, 201]);
    }
  });

  it('redeliver takes no body, or {}; rotate ignores a body (it has none)', async () => {
    // A team of its own: no endpoint subscribes to its event.
    const { client } = await api.caller();
    expect((await client.post(BRANDS, { name: 'Evented' })).status).toBe(201);
    const [event] = await eventsOf(client, 1);
    for (const body of [undefined, {}]) {
      const redelivered = await client.post(`/api/v1/events/${event?.id}/redeliver`, body);
      expect([redelivered.status, redelivered.body]).toEqual([202, { endpoint_ids: [] }]);
    }
    const endpoint = await newEndpoint();
    for (const body of [undefined, {}, { secret: 'mine' }]) {
      const rotated = await caller.client.post(`${ENDPOINTS}/${endpoint.body.id}/secret/rotate`, body);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe('mine');
    }
  });

  it('a URL with a space is refused; a non-ASCII one is stored and answered in its ASCII form', async () => {
    for (const url of ['https://exa mple.com', 'https://example.com/a b', 'https://example.com/ x']) {
      const response = await caller.client.post(BRANDS, { name: 'Spaced', website_url: url });
      expect([url, response.status]).toEqual([url, 422]);
      expect(response.body.errors.website_url[0]).toContain('without spaces');
    }
    const idn = await caller.client.post(BRANDS, {
      name: 'Bücher',
      website_url: 'https://bücher.example',
      logo_image: 'https://bücher.example/ü.png?x=ä',
    });
    expect(idn.status).toBe(201);
    expect([idn.body.website_url, idn.body.logo_image]).toEqual([
      'https://xn--bcher-kva.example',
      'https://xn--bcher-kva.example/%C3%BC.png?x=%C3%A4',
    ]);
    // A tab or line break is no part of a URL (WHATWG's parser drops them): dropped, as a browser does.
    const tab = await caller.client.post(BRANDS, { name: 'Tabbed', website_url: 'https://example.com/\tx' });
    expect([tab.status, tab.body.website_url]).toEqual([201, 'https://example.com/x']);
    const ascii = await caller.client.post(BRANDS, { name: 'Plain', website_url: 'https://example.com' });
    expect(ascii.body.website_url).toBe('https://example.com');
  });

  it('an Idempotency-Key with a space inside is a 400, as other keys that are not visible characters', async () => {
    for (const key of ['two words', 'a\tb']) {
      const response = await caller.client.post(BRANDS, { name: 'Keyed' }, { 'Idempotency-Key': key });
      expect([key, response.status]).toEqual([key, 400]);
      expect(response.body.message).toContain('visible ASCII characters, without spaces');
    }
    const fine = await caller.client.post(BRANDS, { name: 'Keyed' }, { 'Idempotency-Key': 'one-key_1' });
    expect(fine.status).toBe(201);
  });
});
