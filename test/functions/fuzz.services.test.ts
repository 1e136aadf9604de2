import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../lib/openapi/operations.ts';
import { putPrivateFile } from '../../shared/files/library.ts';
import { LIMITS } from '../../shared/limits.ts';
import { type Route, routeKey, routes } from '../../shared/routes.ts';
import { type FixtureServer, startFixtureServer } from '../shared/autoconfigure/fixture-server.ts';
import { type ApiClient, apiClient, newTeam, startApi, type TestTeam } from '../support/api.ts';
import { contractProblems } from '../support/contract.ts';
import { writeEvents } from '../support/events.ts';
import {
  assertResponse,
  type Dimension,
  type FuzzRequest,
  type FuzzResponse,
  type KnownIds,
  requestArbitrary,
  send,
  sendRaw,
  stringSlotRequest,
  stringSlots,
} from '../support/fuzz-requests.ts';
import { type GeneratedPage, hostilePageArbitrary } from '../support/hostile-pages.ts';
import { pathOfBytes } from '../support/library-paths.ts';
import { useSettings } from '../support/settings.ts';

/**
 * Property-based robustness suite: for every row of the route table, seeded random malformed and
 * adversarial requests (bodies, headers, query strings, path ids) go over real HTTP to the local gateway,
 * and every answer must be a documented status, never a 5xx, with a JSON body carrying `message` on an
 * error. Then every place a route reads a string (each body field, array item, object key and value, and
 * query parameter its schemas declare) gets adversarial strings one at a time, the rest of the request
 * valid. Then plain boundary cases at each input limit.
 */

const SEED = 20261125;

/** Runs per property: ~3,000 requests in all. Body fuzz weighs most where there is a body to read. */
function runsFor(route: Route, dimension: Dimension): number {
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  switch (dimension) {
    case 'body':
      return hasBody ? 150 : 25;
    case 'headers':
      return 40;
    case 'query':
      return 40;
    case 'id':
      return 60;
    case 'all':
      return hasBody ? 60 : 30;
  }
}

const MAX_BODY_DEPTH = LIMITS.bodyDepth;
const MAX_OBJECT_KEY_BYTES = LIMITS.objectKeyBytes;
const LONGEST_LIBRARY_PREFIX_BYTES = LIMITS.libraryPrefixBytes;

let api: Awaited<ReturnType<typeof startApi>>;
let team: TestTeam;
const known: KnownIds = { brands: [], contactFields: [], events: [] };
let requestCount = 0;
const startedAt = Date.now();

/** A brand and a pick-list field of the client's team, for the id routes to address. */
async function brandAndField(client: ApiClient, name: string, tag: string) {
  const brand = await client.post('/api/v1/brands', { name: `${name} brand` });
  const field = await client.post('/api/v1/contact-fields', {
    name: `${name} choice`,
    tag: `${tag}_choice`,
    type: 'pick_list',
    contact_type: 'person',
    options: ['a', 'b'],
  });
  expect([brand.status, field.status]).toEqual([201, 201]);
  return { brand: brand.body.id as number, field: field.body.id as number };
}

beforeAll(async () => {
  api = await startApi();
  team = await newTeam('Fuzz team');
  const other = await newTeam('Fuzz other team');
  // Real ids: the team's own (200 until a fuzzed DELETE removes them) and another team's (403).
  for (const { teamId, token } of [team, other]) {
    const client = apiClient(api.url, token);
    const { brand, field } = await brandAndField(client, 'Fuzz', 'fuzz');
    known.brands.push(brand);
    known.contactFields.push(field);
    // An event of each team, written into the log (no stream is read here).
    known.events.push(...(await writeEvents(teamId, 1)).map((event) => event.id));
  }
});

afterAll(async () => {
  await api?.close();
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  console.info(`fuzz: ${requestCount} requests in ${seconds} s`);
});

/** Sends one generated request; whatever it answers, the OpenAPI document must describe it. */
async function call(request: FuzzRequest, token = team.token): Promise<FuzzResponse> {
  requestCount++;
  const response = await send(api.url, token, request);
  expect(contractProblems(request.method, api.url + request.path, response), request.path).toEqual([]);
  return response;
}

async function callRaw(method: string, path: string, headers: Array<[string, string]>, body?: string) {
  requestCount++;
  return sendRaw(
    api.url,
    method,
    path,
    [['Authorization', `Bearer ${team.token}`], ['Accept', 'application/json'], ...headers],
    body,
  );
}

function parse(response: FuzzResponse): Record<string, unknown> {
  return JSON.parse(response.text) as Record<string, unknown>;
}

/** Expects a JSON error of this status with a message; returns the body. */
function expectError(response: FuzzResponse, status: number): Record<string, unknown> {
  expect(response.status, response.text.slice(0, 600)).toBe(status);
  const body = parse(response);
  expect(typeof body.message === 'string' && body.message.length > 0, response.text.slice(0, 600)).toBe(true);
  return body;
}

const byName = (method: Route['method'], path: string) => {
  const route = routes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`no route ${method} ${path}`);
  return route;
};

describe.each(routes.map((route) => [routeKey(route), route] as const))('fuzz %s', (_name, route) => {
  const dimensions: Dimension[] = ['body', 'headers', 'query', 'id', 'all'];
  for (const dimension of dimensions.filter((d) => d !== 'id' || route.path.includes('{'))) {
    it(`answers a documented JSON status to random ${dimension === 'all' ? 'everything' : dimension}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route, dimension, known), async (request) => {
          assertResponse(route, request, await call(request));
        }),
        // No shrinking: each step is a request, and the report already names the request and response.
        { seed: SEED, numRuns: runsFor(route, dimension), endOnFailure: true },
      );
    });
  }
});

/** Runs per string slot (66 today): each run puts one adversarial string in the slot, all else valid. */
const STRING_RUNS = 20;

describe('every string of every route', () => {
  const slots = routes.flatMap((route) =>
    stringSlots(route).map((slot) => {
      const where = `${slot.in} ${slot.name}${slot.as === 'value' ? '' : ` (${slot.as})`}`;
      return [`${routeKey(route)}, ${where}`, route, slot] as const;
    }),
  );
  // A team of its own, so that the creates here meet no quota the other properties used up.
  let owner: TestTeam;
  const ids = { brand: '', field: '' };

  beforeAll(async () => {
    owner = await newTeam('Fuzz strings team');
    const client = apiClient(api.url, owner.token);
    const { brand, field } = await brandAndField(client, 'Strings', 'strings');
    [ids.brand, ids.field] = [String(brand), String(field)];
    // Files in the library and in a folder: paths then meet existing folders, where a store's file
    // system reads a name rather than stopping at a missing folder.
    for (const path of ['a.png', 'fuzz/a.png', 'logos/a.png']) {
      await putPrivateFile(owner.teamId, path, Buffer.from('fuzz'), 'image/png');
    }
  });

  it('covers each body of the route table and each paged list’s limit and cursor', () => {
    const covered = (route: Route, where: 'body' | 'query') =>
      slots.some(([, slotRoute, slot]) => slotRoute === route && slot.in === where);
    // Every body with a string in it (a redelivery names an endpoint by its integer id; a rotation has no body).
    const withoutStrings = ['POST /api/v1/events/{id}/redeliver'];
    const bodies = routes.filter((route) => OPERATIONS[routeKey(route)]?.body);
    expect(bodies.map(routeKey)).toEqual(expect.arrayContaining(withoutStrings));
    for (const route of bodies.filter((route) => !withoutStrings.includes(routeKey(route)))) {
      expect(covered(route, 'body'), routeKey(route)).toBe(true);
    }
    for (const route of routes.filter((candidate) => OPERATIONS[routeKey(candidate)]?.paged)) {
      const names = slots.filter(([, r]) => r === route).map(([, , slot]) => slot.name);
      expect(names, routeKey(route)).toEqual(expect.arrayContaining(['limit', 'cursor']));
    }
    // Read off the request schemas themselves: every library path field of every body is a slot.
    const pathFields = routes.flatMap((route) => {
      const def = OPERATIONS[routeKey(route)]?.body?._zod.def as { shape?: object } | undefined;
      const fields = Object.keys(def?.shape ?? {}).filter((name) => /(^|_)path$/.test(name));
      return fields.map((field) => [route, field] as const);
    });
    expect(pathFields.map(([route, field]) => `${routeKey(route)} ${field}`)).toContain(
      'POST /api/v1/files path',
    );
    for (const [route, field] of pathFields) {
      const slot = slots.find(([, r, s]) => r === route && s.in === 'body' && s.name === field);
      expect(slot, `${routeKey(route)} ${field}`).toBeDefined();
    }
  });

  it.each(slots)(
    '%s: no string is a 5xx; a lone surrogate is a 422 naming the field',
    async (_, route, slot) => {
      const id = route.path.startsWith('/api/v1/contact-fields') ? ids.field : ids.brand;
      await fc.assert(
        fc.asyncProperty(stringSlotRequest(route, slot, id), async ({ request, value }) => {
          const response = await call(request, owner.token);
          assertResponse(route, request, response);
          if (slot.in === 'body' && !value.isWellFormed()) {
            const fields = Object.keys(expectError(response, 422).errors ?? {});
            const named = fields.some((field) => field === slot.name || field.startsWith(`${slot.name}.`));
            expect(named, `${slot.name} in ${fields.join(', ')}`).toBe(true);
          }
        }),
        { seed: SEED, numRuns: STRING_RUNS, endOnFailure: true },
      );
    },
    60_000,
  );
});

describe('body nesting depth', () => {
  const brands = byName('POST', '/api/v1/brands');
  const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

  it.each([
    ['arrays', nestedArrays],
    ['objects', nestedObjects],
  ])(`a body of ${MAX_BODY_DEPTH} nested %s is parsed (then refused by validation)`, async (_kind, build) => {
    const request: FuzzRequest = {
      method: 'POST',
      path: brands.path,
      headers: [],
      body: build(MAX_BODY_DEPTH),
    };
    const response = await call(request);
    assertResponse(brands, request, response);
    expectError(response, 422);
  });

  it.each([
    ['arrays', nestedArrays],
    ['objects', nestedObjects],
  ])(`a body of ${MAX_BODY_DEPTH + 1} nested %s is 400`, async (_kind, build) => {
    const response = await call({
      method: 'POST',
      path: brands.path,
      headers: [],
      body: build(MAX_BODY_DEPTH + 1),
    });
    expectError(response, 400);
  });

  it.each([
    ['5,000 nested arrays', nestedArrays(5_000)],
    ['20,000 nested objects', nestedObjects(20_000)],
  ])('%s with an Idempotency-Key are 400, never 500', async (_kind, body) => {
    const headers: Array<[string, string]> = [['Idempotency-Key', crypto.randomUUID()]];
    expectError(await call({ method: 'POST', path: brands.path, headers, body }), 400);
  });
});

describe('lone surrogates', () => {
  // The escapes are written into the JSON text: JSON.parse turns them into unpaired UTF-16 code units.
  it.each(['\\ud800', '\\udfff', 'a\\ud800b'])('a brand name "%s" is 422 on name', async (escaped) => {
    const body = `{"name":"${escaped}"}`;
    const response = await call({ method: 'POST', path: '/api/v1/brands', headers: [], body });
    expect(Object.keys(expectError(response, 422).errors ?? {})).toContain('name');
  });

  it.each(['\\ud800', '\\udfff', 'a\\ud800b'])(
    'a contact field name "%s" is 422 on name',
    async (escaped) => {
      const body = `{"name":"${escaped}","tag":"lone_surrogate","type":"text","contact_type":"person"}`;
      const response = await call({ method: 'POST', path: '/api/v1/contact-fields', headers: [], body });
      expect(Object.keys(expectError(response, 422).errors ?? {})).toContain('name');
    },
  );
});

describe('lone surrogates in library paths', () => {
  it('POST /api/v1/files with a path holding "\\ud800" is 422 on path', async () => {
    const body = '{"path":"logos/\\ud800.png","content_type":"image/png","size":1}';
    const response = await call({ method: 'POST', path: '/api/v1/files', headers: [], body });
    expect(Object.keys(expectError(response, 422).errors ?? {})).toContain('path');
  });

  it('POST /api/v1/brands with a logo_image_path holding "\\udfff" is 422 on logo_image_path', async () => {
    const body = '{"name":"Lone","logo_image_path":"logos/\\udfff.png"}';
    const response = await call({ method: 'POST', path: '/api/v1/brands', headers: [], body });
    expect(Object.keys(expectError(response, 422).errors ?? {})).toContain('logo_image_path');
  });
});

describe('library path length (UTF-8 bytes of the key teams/<id>/<path>)', () => {
  const upload = (path: string) =>
    call({
      method: 'POST',
      path: '/api/v1/files',
      headers: [],
      body: JSON.stringify({ path, content_type: 'image/png', size: 1 }),
    });
  const prefixBytes = () => Buffer.byteLength(`teams/${team.teamId}/`);
  // A path of MAX - LONGEST_PREFIX bytes fits whatever the team id; one byte past MAX with this team's
  // prefix never does. Both hold whether the check counts this team's prefix or the longest one. The
  // paths are of names within the library's 255 bytes each (test/functions/files/brand-images.services.test.ts tests those).
  const fitting = MAX_OBJECT_KEY_BYTES - LONGEST_LIBRARY_PREFIX_BYTES;
  const over = () => MAX_OBJECT_KEY_BYTES + 1 - prefixBytes();

  it('a short ASCII path is 200', async () => {
    const response = await upload('logos/a.png');
    expect(response.status, response.text.slice(0, 300)).toBe(200);
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji', '😀'],
  ])('a path of %s characters that fits the key limit is 200', async (_kind, char) => {
    const response = await upload(pathOfBytes(char, fitting));
    expect(response.status, response.text.slice(0, 300)).toBe(200);
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji', '😀'],
  ])('a path of %s characters one byte over the key limit is 422 on path', async (_kind, char) => {
    const path = pathOfBytes(char, over());
    expect(path.length).toBeLessThanOrEqual(MAX_OBJECT_KEY_BYTES); // over in bytes, not in characters
    expect(Object.keys(expectError(await upload(path), 422).errors ?? {})).toContain('path');
  });
});

describe('pick_list options size', () => {
  const createField = (tag: string, options: string[]) =>
    call({
      method: 'POST',
      path: '/api/v1/contact-fields',
      headers: [],
      body: JSON.stringify({ name: 'Many options', tag, type: 'pick_list', contact_type: 'person', options }),
    });

  it('1,000 options of 251 CJK characters each are 422 naming options, never 500', async () => {
    const options = Array.from(
      { length: 1000 },
      (_, i) => '漢'.repeat(250) + String.fromCodePoint(0x4e00 + i),
    );
    const body = expectError(await createField('many_cjk_options', options), 422);
    const fields = Object.keys(body.errors ?? {});
    expect(
      fields.some((field) => field === 'options' || field.startsWith('options.')),
      JSON.stringify(fields),
    ).toBe(true);
  });

  it('1,000 short ASCII options are 201', async () => {
    const options = Array.from({ length: 1000 }, (_, i) => `option ${i}`);
    const response = await createField('many_ascii_options', options);
    expect(response.status, response.text.slice(0, 300)).toBe(201);
  });

  /** 1,000 distinct options of 262 or 263 bytes, `extra` bytes over the limit in all. */
  const optionsOfBytes = (extra: number) =>
    Array.from({ length: LIMITS.contactFieldOptions }, (_, i) => {
      const longer = i < 144 || (i === 999 && extra > 0);
      return String.fromCodePoint(0x4e00 + i) + '漢'.repeat(86) + (longer ? 'ab' : 'a');
    });

  it('options of exactly the byte limit in all are 201, and read back whole', async () => {
    const options = optionsOfBytes(0);
    expect(options.reduce((sum, o) => sum + Buffer.byteLength(o), 0)).toBe(LIMITS.contactFieldOptionsBytes);
    const response = await createField('options_at_byte_limit', options);
    expect(response.status, response.text.slice(0, 300)).toBe(201);
    const stored = parse(
      await call({ method: 'GET', path: `/api/v1/contact-fields/${parse(response).id}`, headers: [] }),
    );
    expect(stored.options).toEqual(options);
  });

  it('options one byte over the limit in all are 422 naming options', async () => {
    const options = optionsOfBytes(1);
    expect(options.reduce((sum, o) => sum + Buffer.byteLength(o), 0)).toBe(
      LIMITS.contactFieldOptionsBytes + 1,
    );
    const body = expectError(await createField('options_over_byte_limit', options), 422);
    expect(Object.keys(body.errors ?? {})).toEqual(['options']);
  });
});

describe('the largest items the limits allow', () => {
  it('a brand at every limit at once (4-byte characters throughout) is created and read back', async () => {
    const wide = (n: number, i = 0) => String.fromCodePoint(0x1f600 + (i % 64)).repeat(n / 2);
    const brand = {
      name: wide(254),
      short_description: wide(254),
      tags: Array.from({ length: LIMITS.brandTags }, (_, i) => `${i}`.padEnd(3, '-') + wide(252, i)),
      social_links: Object.fromEntries(
        Array.from({ length: LIMITS.brandSocialLinks }, (_, i) => [
          `network${i}`,
          `https://example.com/${'x'.repeat(200)}${i}`,
        ]),
      ),
    };
    const created = await call({
      method: 'POST',
      path: '/api/v1/brands',
      headers: [['Idempotency-Key', `largest-${Date.now()}`]],
      body: JSON.stringify(brand),
    });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const stored = parse(
      await call({ method: 'GET', path: `/api/v1/brands/${parse(created).id}`, headers: [] }),
    );
    expect(stored.tags).toHaveLength(LIMITS.brandTags);
    expect(Object.keys(stored.social_links as object)).toHaveLength(LIMITS.brandSocialLinks);
  });
});

describe.each(routes.map((route) => [routeKey(route), route] as const))(
  'prototype names on %s',
  (_name, route) => {
    const path = route.path.replace('{id}', '999999999');
    const body = route.method === 'POST' || route.method === 'PUT' ? '{}' : undefined;

    it.each(['constructor', '__proto__', 'toString'])('a header named %s is no 5xx', async (name) => {
      const request: FuzzRequest = { method: route.method, path, headers: [[name, '1']], body };
      assertResponse(route, request, await call(request));
    });

    it('?constructor=1&toString=x&hasOwnProperty=x&valueOf= is no 5xx', async () => {
      const request: FuzzRequest = {
        method: route.method,
        path: `${path}?constructor=1&toString=x&hasOwnProperty=x&valueOf=`,
        headers: [],
        body,
      };
      assertResponse(route, request, await call(request));
    });
  },
);

describe('prototype names inside bodies', () => {
  const idFor = (route: Route) =>
    route.path.startsWith('/api/v1/contact-fields') ? known.contactFields[0] : known.brands[0];
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it.each(names)('social_links {"%s": url} on brand create and update is no 5xx', async (name) => {
    const links = `{"${name}":"https://x.com/acme"}`;
    const create = byName('POST', '/api/v1/brands');
    const createRequest: FuzzRequest = {
      method: 'POST',
      path: create.path,
      headers: [],
      body: `{"name":"Links ${name}","social_links":${links}}`,
    };
    assertResponse(create, createRequest, await call(createRequest));
    const update = byName('PUT', '/api/v1/brands/{id}');
    const target = await call({
      method: 'POST',
      path: create.path,
      headers: [],
      body: '{"name":"Links target"}',
    });
    expect(target.status, target.text.slice(0, 300)).toBe(201);
    const updateRequest: FuzzRequest = {
      method: 'PUT',
      path: `/api/v1/brands/${parse(target).id}`,
      headers: [],
      body: `{"social_links":${links}}`,
    };
    assertResponse(update, updateRequest, await call(updateRequest));
  });

  it.each(names)('a top-level key "%s" on every body route is no 5xx', async (name) => {
    for (const route of routes.filter(
      (candidate) => candidate.method === 'POST' || candidate.method === 'PUT',
    )) {
      const request: FuzzRequest = {
        method: route.method,
        path: route.path.replace('{id}', String(idFor(route))),
        headers: [],
        body: `{"${name}":{"name":"x","tag":"x","path":"a.png","url":"http://127.0.0.1/"}}`,
      };
      assertResponse(route, request, await call(request));
    }
  });
});

describe('a body on GET and DELETE is ignored', () => {
  it('GET /api/v1/brands with the body `{` is 200', async () => {
    const response = await callRaw('GET', '/api/v1/brands', [['Content-Type', 'application/json']], '{');
    expect(response.status, response.text.slice(0, 300)).toBe(200);
  });

  const bodiless = routes.filter((route) => route.method === 'GET' || route.method === 'DELETE');
  it.each(bodiless.map((route) => [routeKey(route), route] as const))(
    '%s answers the same with the body `{` as without one',
    async (_name, route) => {
      // A missing id: a DELETE then changes nothing, so both requests see the same state.
      const path = route.path.replace('{id}', '999999999');
      const without = await callRaw(route.method, path, []);
      const withBody = await callRaw(route.method, path, [['Content-Type', 'application/json']], '{');
      expect(withBody.status, withBody.text.slice(0, 300)).toBe(without.status);
      expect(withBody.status).not.toBe(400);
    },
  );
});

describe('malformed percent-encoding in the path', () => {
  const cases = routes
    .filter((route) => route.path.includes('{id}'))
    .flatMap((route) =>
      ['%zz', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF'].map(
        (raw) => [`${route.method} ${route.path.replace('{id}', raw)}`, route, raw] as const,
      ),
    );

  it.each(cases)('%s is a JSON 4xx with a message', async (_name, route, raw) => {
    const body = route.method === 'PUT' ? '{}' : undefined;
    const response = await callRaw(route.method, route.path.replace('{id}', raw), [], body);
    expect(response.status, response.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
    const parsed = parse(response);
    expect(typeof parsed.message === 'string' && parsed.message.length > 0).toBe(true);
  });
});

describe('auto-configure reads hostile pages', () => {
  // The page and manifest the local site serves now: each run of the property sets them, then asks for them.
  let current: GeneratedPage = { html: '', manifest: null };
  let site: FixtureServer | undefined;
  beforeAll(async () => {
    site = await startFixtureServer({
      '/': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(current.html);
      },
      '/site.webmanifest': (_request, response) => {
        response
          .writeHead(current.manifest === null ? 404 : 200, { 'content-type': 'application/manifest+json' })
          .end(current.manifest ?? '');
      },
    });
  });
  afterAll(() => site?.close());

  it('answers 200 with suggestions, or the 422 "too complex" on url, to random hostile pages', async () => {
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const client = apiClient(api.url, team.token);
    await fc.assert(
      fc.asyncProperty(hostilePageArbitrary(), async (page) => {
        current = page;
        requestCount++;
        const response = await client.post('/api/v1/brands/auto-configure', { url: site?.url('/') });
        expect([200, 422], response.text.slice(0, 300)).toContain(response.status);
        if (response.status === 422) {
          expect(response.body.message).toMatch(/^page is too complex to read \(.+\)$/);
          expect(response.body.errors).toEqual({ url: [response.body.message] });
        } else {
          expect(response.body.suggestions.website_url).toBe(`${site?.origin}/`);
        }
      }),
      { seed: SEED, numRuns: 40, endOnFailure: true },
    );
  });
});
