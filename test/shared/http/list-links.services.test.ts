import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../client/index.ts';
import { proxyEvent } from '../../../lib/local/lambda-events.ts';
import { OPERATIONS } from '../../../lib/openapi/operations.ts';
import { createPage } from '../../../shared/data/pages.ts';
import { createSite } from '../../../shared/data/sites.ts';
import { type ProxyHandler, requestUrl } from '../../../shared/http/handler.ts';
import { type Route, routeKey, routes } from '../../../shared/routes.ts';
import { type Caller, useApi } from '../../support/api.ts';
import { endpointDeliveriesMade } from '../../support/delivery-fixtures.ts';
import { writeEvents } from '../../support/events.ts';
import { nextLink } from '../../support/link-pages.ts';
import { ROOT } from '../../support/processes.ts';
import { HANG_MS } from '../../support/timeouts.ts';
import { startReceiver, useReceivers } from '../../support/webhook-receiver.ts';

/**
 * Every list's `Link` can be followed as given. For each paged list of the route table
 * (found there, so a list added later is covered or fails here by name), a fresh team's items are made,
 * the first page is asked for with `limit` 1 and 2 (and each filter the list has), and each Link is
 * followed exactly as given, with the raw client and with the typed one, until the last page: every page
 * answers 200, and together they are the whole list, each item once, in order.
 */
const api = useApi();
const receivers = useReceivers();

/** What a fixture made: the list's path for this team, its item count, and filtered queries to walk too. */
interface Made {
  path: string;
  count: number;
  /** Queries (filters in the canonical form the Link repeats) that each match at least 3 items. */
  filters: string[];
}

/** The route table's paged lists: GET routes whose operation takes `limit` and `cursor`. */
const LIST_ROUTES = routes.filter((route) => route.method === 'GET' && OPERATIONS[routeKey(route)]?.paged);

/**
 * The items of each list, made for a fresh team: at least 3 of them, so that pages of 1 and 2 take Links.
 * A list of the route table with no fixture here fails its test by name.
 */
const FIXTURES: Record<string, (caller: Caller) => Promise<Made>> = {
  'GET /api/v1/brands': async ({ client }) => {
    for (const name of ['beta', 'Alpha', 'gamma', 'alpha'])
      await created(client.post('/api/v1/brands', { name }));
    return { path: '/api/v1/brands', count: 4, filters: [] };
  },
  'GET /api/v1/contact-fields': async ({ client }) => {
    for (let i = 0; i < 5; i++) {
      const contact_type = i === 2 ? 'organization' : 'person';
      const field = { name: `Field ${i}`, tag: `field_${i}`, type: 'text', contact_type };
      await created(client.post('/api/v1/contact-fields', field));
    }
    return { path: '/api/v1/contact-fields', count: 5, filters: ['contact_type=person'] };
  },
  // Pages have no create route: they come from the team's sites (the data module, as test/functions/pages/pages.services.test.ts).
  'GET /api/v1/pages': async ({ teamId }) => {
    const [main, blog] = [
      await createSite(teamId, 'Main', 'https://main.example'),
      await createSite(teamId, 'Blog', 'https://blog.example'),
    ];
    for (const name of ['home', 'About', 'contact']) await createPage(teamId, main.id, name, `/${name}`);
    await createPage(teamId, blog.id, 'Posts', '/posts');
    return { path: '/api/v1/pages', count: 4, filters: [`site_id=${main.id}`] };
  },
  'GET /api/v1/events': async ({ teamId }) => {
    await writeEvents(teamId, 3, { brandId: 1 });
    await writeEvents(teamId, 2, { brandId: 2, newest: new Date(Date.now() - 3_600_000) });
    return {
      path: '/api/v1/events',
      count: 5,
      filters: ['resource=brand%3A1', 'type=brand.updated'],
    };
  },
  'GET /api/v1/webhook-endpoints': async ({ client }) => {
    for (const name of ['a', 'b', 'c']) {
      const endpoint = { url: `http://127.0.0.1:9/${name}`, event_types: ['brand.created'] };
      await created(client.post('/api/v1/webhook-endpoints', endpoint));
    }
    return { path: '/api/v1/webhook-endpoints', count: 3, filters: [] };
  },
  // Real attempts: brands created through the API reach a real receiver through the stream, the consumer's
  // fan-out and the deliverer (the test run's), which records each try.
  'GET /api/v1/webhook-endpoints/{id}/attempts': async (caller) => {
    const at = await startReceiver();
    receivers.push(at);
    const endpoint = await created(
      caller.client.post('/api/v1/webhook-endpoints', { url: at.url, event_types: ['brand.created'] }),
    );
    for (const name of ['One', 'Two', 'Three']) await created(caller.client.post('/api/v1/brands', { name }));
    await at.received(3);
    const path = `/api/v1/webhook-endpoints/${endpoint.id}/attempts`;
    // A try is recorded once its answer is in: wait for the three (a deadline for a hang only).
    const deadline = Date.now() + HANG_MS;
    while ((await caller.client.get(path)).body.length < 3) {
      if (Date.now() > deadline) throw new Error('the 3 attempts were never recorded');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { path, count: 3, filters: [] };
  },
  'GET /api/v1/webhook-endpoints/{id}/deliveries': (caller) => endpointDeliveriesMade(caller, receivers),
};

async function created(request: Promise<{ status: number; body: { id: number }; text: string }>) {
  const response = await request;
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const withQuery = (path: string, ...parts: string[]) => {
  const query = parts.filter((part) => part !== '').join('&');
  return query ? `${path}?${query}` : path;
};

/** A query's pairs but the cursor, in a canonical order: what the Link must repeat. */
const repeated = (params: URLSearchParams) =>
  [...params].filter(([name]) => name !== 'cursor').sort(([a], [b]) => a.localeCompare(b));

/**
 * Walks the list from `first` with the test client, following each `Link` exactly as given (its URL's path
 * and query, on the API's origin); every item and every Link followed.
 */
async function followLinks(caller: Caller, first: string) {
  const asked = new URL(first, api.url);
  let response = await caller.client.get(first);
  expect(response.status, response.text).toBe(200);
  const items: unknown[] = [...response.body];
  const links: string[] = [];
  for (let link = nextLink(response.headers); link !== undefined; link = nextLink(response.headers)) {
    expect(link, 'a URL, not a template').not.toMatch(/[{}]/);
    const url = new URL(link);
    expect(url.origin).toBe(new URL(api.url).origin);
    expect(url.pathname, 'the path the caller used').toBe(asked.pathname);
    expect(repeated(url.searchParams), 'the same filters and limit').toEqual(repeated(asked.searchParams));
    response = await caller.client.get(`${url.pathname}${url.search}`);
    expect(response.status, `${link}: ${response.text}`).toBe(200);
    items.push(...response.body);
    links.push(link);
    if (links.length > 50) throw new Error(`${first}: the Links never end`);
  }
  return { items, links };
}

/**
 * The same walk with the typed client (client/): each Link's path read back into the route's parameters
 * and its query into the call's, as an integrator using the client would follow it.
 */
async function followLinksTyped(caller: Caller, route: Route, first: string): Promise<unknown[]> {
  const typed = createApiClient({ baseUrl: api.url, token: caller.token });
  // The route comes from the table at run time, so its path is not one of the client's literal types.
  const get = typed.GET as unknown as (
    path: string,
    init: { params: { path: Record<string, string>; query: Record<string, string | string[]> } },
  ) => Promise<{ data?: unknown[]; response: Response }>;
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const template = new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`);
  const items: unknown[] = [];
  let url: URL | undefined = new URL(first, api.url);
  for (let pages = 0; url !== undefined; pages++) {
    const values = template.exec(url.pathname)?.slice(1) ?? [];
    expect(values, `${url.pathname} is a path of ${route.path}`).toHaveLength(names.length);
    const path = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i] as string)]));
    const query: Record<string, string | string[]> = {};
    for (const name of new Set(url.searchParams.keys())) {
      const all = url.searchParams.getAll(name);
      query[name] = all.length === 1 ? (all[0] as string) : all;
    }
    const { data, response } = await get(route.path, { params: { path, query } });
    expect(response.status, `${url}`).toBe(200);
    items.push(...(data ?? []));
    const link = nextLink(response.headers);
    url = link === undefined ? undefined : new URL(link);
    if (pages > 50) throw new Error(`${first}: the Links never end`);
  }
  return items;
}

describe('every list’s Link, followed as given', () => {
  it('finds the lists in the route table: each GET whose handler builds a Link is a paged list, and the reverse', () => {
    expect(LIST_ROUTES.length).toBeGreaterThanOrEqual(6);
    for (const route of routes.filter((candidate) => candidate.method === 'GET')) {
      const source = readFileSync(`${ROOT}/${route.handler}`, 'utf8');
      const linked = source.includes('pageResponse(');
      expect(linked, `${routeKey(route)}: builds a Link iff the document says it is paged`).toBe(
        LIST_ROUTES.includes(route),
      );
    }
  });

  it.each(LIST_ROUTES.map((route) => [routeKey(route), route] as const))(
    '%s: pages of 1 and 2 walk the whole list once, in order, every Link answering 200',
    async (key, route) => {
      const fixture = FIXTURES[key];
      if (!fixture)
        throw new Error(`${key} is a list of the route table with no fixture in this test: add one`);
      const caller = await api.caller();
      const made = await fixture(caller);
      for (const filter of ['', ...made.filters]) {
        // Under 200 items, the list without `limit` is one page: the whole list, in its order.
        const whole = await caller.client.get(withQuery(made.path, filter));
        expect(whole.status, whole.text).toBe(200);
        expect(whole.headers.get('link')).toBeNull();
        if (filter === '') expect(whole.body).toHaveLength(made.count);
        expect(whole.body.length, `${filter}: at least 3 items`).toBeGreaterThanOrEqual(3);
        expect(new Set(whole.body.map((item: unknown) => JSON.stringify(item))).size).toBe(whole.body.length);
        for (const limit of [1, 2]) {
          const first = withQuery(made.path, filter, `limit=${limit}`);
          const { items, links } = await followLinks(caller, first);
          expect(items, first).toEqual(whole.body);
          expect(links).toHaveLength(Math.ceil(whole.body.length / limit) - 1);
          expect(await followLinksTyped(caller, route, first), `${first} (typed client)`).toEqual(whole.body);
        }
      }
    },
  );
});

describe('the Link behind a stage, and of a path not as sent', () => {
  it('links the next attempts page under the stage and the path the caller used (API Gateway’s event)', async () => {
    const caller = await api.caller();
    const made = await (
      FIXTURES['GET /api/v1/webhook-endpoints/{id}/attempts'] as (c: Caller) => Promise<Made>
    )(caller);
    const host = 'abc123.execute-api.eu-west-1.amazonaws.com';
    const event = proxyEvent(
      { region: 'eu-west-1', apiId: 'abc123', stage: 'prod' },
      {
        method: 'GET',
        resource: '/api/v1/webhook-endpoints/{id}/attempts',
        path: made.path,
        pathParameters: { id: made.path.split('/')[4] as string },
        headers: [
          ['Host', host],
          ['X-Forwarded-Proto', 'https'],
        ],
        query: [['limit', '1']],
        body: null,
        requestId: randomUUID(),
        sourceIp: '127.0.0.1',
        authorizer: { principalId: 'test', context: { teamId: caller.teamId } },
      },
    );
    // On an execute-api URL the stage precedes the resource path (requestContext.path has it, path not).
    event.requestContext.path = `/prod${made.path}`;
    const { handler } = (await import('../../../functions/webhook-endpoints/attempts.ts')) as {
      handler: ProxyHandler;
    };
    const result = await handler(event, {
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => 30_000,
    } as Parameters<ProxyHandler>[1]);
    expect(result.statusCode, result.body).toBe(200);
    const link = result.headers?.Link as string;
    const prefix = `https://${host}/prod${made.path}?limit=1&cursor=`;
    expect(link.startsWith(`<${prefix}`), link).toBe(true);
    // Without the stage's origin, the same URL is the local gateway's: following it answers the next page.
    const next = new URL(nextLink(new Headers({ link })) as string);
    const followed = await caller.client.get(`${next.pathname.slice('/prod'.length)}${next.search}`);
    expect(followed.status, followed.text).toBe(200);
    expect(followed.body).toHaveLength(1);
  });

  it('escapes what a URL’s path cannot hold as it is, were a path handed on decoded', () => {
    const req = { headers: { host: 'api.example', 'x-forwarded-proto': 'https' }, basePath: '/prod' };
    expect(requestUrl({ ...req, path: '/api/v1/things/{id} <a>"' })).toBe(
      'https://api.example/prod/api/v1/things/%7Bid%7D%20%3Ca%3E%22',
    );
    expect(requestUrl({ ...req, path: '/api/v1/brands/%7B7%7D/x;y=1@a' })).toBe(
      'https://api.example/prod/api/v1/brands/%7B7%7D/x;y=1@a',
    );
  });
});

describe('the document’s Link header', () => {
  const document = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));
  // As a JSON Schema validator reads a pattern (ECMA-262, unicode).
  const form = new RegExp(document.components.headers.Link.schema.pattern, 'u');
  const good = 'http://127.0.0.1:3000/api/v1/webhook-endpoints/42/attempts?limit=1&cursor=eyJ2IjoxfQ.c2ln';

  it('accepts a next link a client can follow, behind a stage and with filters too', () => {
    expect(form.test(`<${good}>; rel="next"`)).toBe(true);
    const staged = 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1/pages';
    expect(form.test(`<${staged}?site_id=1&site_id=2&limit=2&cursor=a-_b.c_d>; rel="next"`)).toBe(true);
    expect(form.test('<https://api.example/api/v1/events?resource=brand%3A1&cursor=a.b>; rel="next"')).toBe(
      true,
    );
  });

  it('rejects what cannot be followed: a template’s {id}, another rel, no cursor, a relative or odd URL', () => {
    const refused = [
      `<${good.replace('/42/', '/{id}/')}>; rel="next"`,
      `<${good.replace('/42/', '/%7Bid%7D/').replace('%7B', '{')}>; rel="next"`,
      `<${good}>; rel="prev"`,
      `<${good}>`,
      `<${good.replace(/&cursor=.*$/, '')}>; rel="next"`,
      `<${good.replace('cursor=eyJ2IjoxfQ.c2ln', 'cursor=')}>; rel="next"`,
      `<${good.slice('http://127.0.0.1:3000'.length)}>; rel="next"`,
      `<${good.replace('/42/', '/4 2/')}>; rel="next"`,
      `<${good.replace('http:', 'ftp:')}>; rel="next"`,
      `<${good.replace('/api/v1/', '/')}>; rel="next"`,
      `<${good}#top>; rel="next"`,
    ];
    for (const link of refused) expect(form.test(link), link).toBe(false);
  });
});
