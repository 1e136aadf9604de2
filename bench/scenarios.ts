import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorizer, findRoute, type Route } from '../lib/routes.ts';
import { createBrand } from '../shared/data/brands.ts';
import { createContactField } from '../shared/data/contact-fields.ts';
import { createList } from '../shared/data/lists.ts';
import { createPage } from '../shared/data/pages.ts';
import { createSite } from '../shared/data/sites.ts';
import { createTeam, createToken } from '../shared/data/teams.ts';
import { file, OWN_FIXTURES, startFixtureServer } from '../test/autoconfigure/fixture-server.ts';
import { type BenchRequest, lambdaContext, proxyEvent, tokenEvent } from './events.ts';

/**
 * Every endpoint and its main paths, each a request the bench can make again and again. Imported only
 * after the handler environment is set (the data modules read it when loaded). Data is made with the
 * data modules, outside the timed and counted invocation.
 */
export interface Outcome {
  status: number;
  body: string;
}

/** One prepared request: calling it invokes the function once. */
export type Invocation = () => Promise<Outcome>;

export interface Scenario {
  name: string;
  /** `GET /api/v1/brands/{id}`, or `authorizer`. */
  endpoint: string;
  /** Most DynamoDB round trips the path may take (the budgets); undefined: for information. */
  budget?: number;
  expectedStatus: number;
  /** Untimed invocations first (id blocks reserved, modules loaded, JIT warm). */
  warmup: number;
  /** Timed invocations; 0 counts a single invocation and times nothing. */
  iterations: number;
  /** Prepares the next invocation (makes the data it needs); not timed, not counted. */
  next(): Promise<Invocation>;
}

const ROOT = resolve(import.meta.dirname, '..');
const NO_SUCH_ID = '900000000000';
const READS = 200;
const WRITES = 150;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const modules = new Map<string, Promise<{ handler: unknown }>>();
function load<T>(file: string): Promise<T> {
  let module = modules.get(file);
  if (!module) {
    module = import(pathToFileURL(resolve(ROOT, file)).href) as Promise<{ handler: unknown }>;
    modules.set(file, module);
  }
  return module.then((loaded) => loaded.handler as T);
}

/** A request to a route of the route table, with its proxy event built ahead of the invocation. */
async function request(method: Route['method'], path: string, input: BenchRequest): Promise<Invocation> {
  const route = findRoute(method, path);
  if (!route) throw new Error(`the route table has no ${method} ${path}`);
  const handler = await load<ProxyHandler>(route.handler);
  const event = proxyEvent(route, input);
  const context = lambdaContext(`bench-${method}-${path}`);
  return async () => {
    const result = await handler(event, context);
    return { status: result.statusCode, body: result.body };
  };
}

/**
 * The authorizer with a TOKEN event, read as API Gateway reads it: an Allow policy is a 200, a thrown
 * `Unauthorized` a 401, any other failure the stack's 503.
 */
async function authorize(token: string): Promise<Invocation> {
  const handler = await load<(event: ReturnType<typeof tokenEvent>) => Promise<unknown>>(authorizer.handler);
  const event = tokenEvent(token);
  return () =>
    handler(event).then(
      (policy) => ({ status: 200, body: JSON.stringify(policy) }),
      (error: unknown) => ({
        status: error instanceof Error && error.message === 'Unauthorized' ? 401 : 503,
        body: String(error),
      }),
    );
}

/** A value made on first use and shared by the scenarios that need it. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

async function newTeamId(name: string): Promise<number> {
  return (await createTeam(name)).id;
}

let serial = 0;
/** A name no earlier request used (tags, idempotency keys, brand names). */
const unique = (prefix: string) => `${prefix}_${process.pid}_${++serial}`;

const brandBody = (name: string) => ({
  name,
  short_description: 'Benchmark brand',
  website_url: 'https://example.com',
  primary_color: '#112233',
  secondary_color: '#445566',
  social_links: ['https://twitter.com/example'],
  tags: ['bench', 'newsletter'],
});

/** The same brand as the data module takes it (social links as the stored map). */
const storedBrand = (name: string) => ({
  ...brandBody(name),
  social_links: { twitter: 'https://twitter.com/example' },
});

const fieldInput = (tag: string) => ({
  name: `Field ${tag}`,
  tag,
  type: 'text' as const,
  contact_type: 'person' as const,
});

export async function createScenarios(): Promise<{ scenarios: Scenario[]; close(): Promise<void> }> {
  const closers: Array<() => Promise<void>> = [];

  // A team with five brands (the first the default); another team owns `otherBrandId`.
  const brandsTeam = once(async () => {
    const teamId = await newTeamId('Bench brands');
    const ids: number[] = [];
    for (const [i, name] of ['Acme', 'Beta', 'Gamma', 'Delta', 'Epsilon'].entries()) {
      ids.push((await createBrand(teamId, { ...storedBrand(name), is_default: i === 0 })).id);
    }
    const otherTeam = await newTeamId('Bench other brands');
    const otherBrand = await createBrand(otherTeam, { name: 'Not yours' });
    // Beta: not the default, so updating it is the plain one-call path.
    return { teamId, brandId: ids[1] as number, otherBrandId: otherBrand.id };
  });
  const fieldsTeam = once(async () => {
    const teamId = await newTeamId('Bench fields');
    const ids = [];
    for (let i = 0; i < 10; i++) {
      const field = await createContactField(teamId, {
        ...fieldInput(`field_${i}`),
        contact_type: i % 2 ? 'organization' : 'person',
      });
      ids.push(field.id);
    }
    const otherTeam = await newTeamId('Bench other fields');
    const other = await createContactField(otherTeam, fieldInput('not_yours'));
    return { teamId, fieldId: ids[0] as number, otherFieldId: other.id };
  });
  const pagesTeam = once(async () => {
    const teamId = await newTeamId('Bench pages');
    const sites = [
      await createSite(teamId, 'Main', 'https://example.com'),
      await createSite(teamId, 'Blog', 'https://blog.example.com'),
    ];
    for (let i = 0; i < 20; i++) {
      const site = sites[i % 2] as (typeof sites)[number];
      await createPage(teamId, site.id, `Page ${i}`, `/page-${i}`);
    }
    return { teamId, siteId: (sites[0] as (typeof sites)[number]).id };
  });
  const writerTeam = once(() => newTeamId('Bench writes'));
  const tokenTeam = once(async () => {
    const teamId = await newTeamId('Bench tokens');
    return createToken(teamId);
  });
  const fixtureSite = once(async () => {
    const site = await startFixtureServer({
      '/': file(OWN_FIXTURES, 'brand.html'),
      '/site.webmanifest': file(OWN_FIXTURES, 'brand.webmanifest', 'application/manifest+json'),
    });
    closers.push(() => site.close());
    return site;
  });

  // Alternates the default between two brands of one team, so every update moves it.
  const defaultSwitch = once(async () => {
    const teamId = await newTeamId('Bench default switch');
    const first = await createBrand(teamId, { name: 'First', is_default: true });
    const second = await createBrand(teamId, { name: 'Second' });
    return { teamId, ids: [second.id, first.id], turn: 0 };
  });
  const defaultsTeam = once(() => newTeamId('Bench defaults'));

  /** A default brand with `count` lists linked to it, in `teamId`. */
  const brandWithLists = async (teamId: number, count: number) => {
    const brand = await createBrand(teamId, { name: unique('Linked'), is_default: true });
    for (let i = 0; i < count; i++) await createList(teamId, 'email', `List ${i}`);
    return brand.id;
  };

  const scenarios: Scenario[] = [
    // Before anything else reserves brand or field ids: what the first create of a container pays.
    {
      name: 'brands create, first in this process (reserves an id block)',
      endpoint: 'POST /api/v1/brands',
      expectedStatus: 201,
      warmup: 0,
      iterations: 0,
      next: async () =>
        request('POST', '/api/v1/brands', { teamId: await writerTeam(), body: brandBody('First') }),
    },
    {
      name: 'contact fields create, first in this process (reserves an id block)',
      endpoint: 'POST /api/v1/contact-fields',
      expectedStatus: 201,
      warmup: 0,
      iterations: 0,
      next: async () =>
        request('POST', '/api/v1/contact-fields', {
          teamId: await writerTeam(),
          body: fieldInput(unique('first')),
        }),
    },

    // Brands
    {
      name: 'brands list (5 brands)',
      endpoint: 'GET /api/v1/brands',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => request('GET', '/api/v1/brands', { teamId: (await brandsTeam()).teamId }),
    },
    {
      name: 'brands get',
      endpoint: 'GET /api/v1/brands/{id}',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => {
        const { teamId, brandId } = await brandsTeam();
        return request('GET', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(brandId) } });
      },
    },
    {
      name: "brands get, another team's (403)",
      endpoint: 'GET /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 403,
      warmup: 10,
      iterations: READS,
      next: async () => {
        const { teamId, otherBrandId } = await brandsTeam();
        return request('GET', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(otherBrandId) } });
      },
    },
    {
      name: 'brands get, no such brand (404)',
      endpoint: 'GET /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('GET', '/api/v1/brands/{id}', {
          teamId: (await brandsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
        }),
    },
    {
      name: 'brands create',
      endpoint: 'POST /api/v1/brands',
      budget: 1,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/brands', { teamId: await writerTeam(), body: brandBody(unique('Brand')) }),
    },
    {
      name: 'brands create, Idempotency-Key',
      endpoint: 'POST /api/v1/brands',
      budget: 2,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/brands', {
          teamId: await writerTeam(),
          body: brandBody(unique('Keyed')),
          headers: { 'Idempotency-Key': unique('key') },
        }),
    },
    {
      name: 'brands create, is_default (team has no default)',
      endpoint: 'POST /api/v1/brands',
      budget: 1,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/brands', {
          teamId: await newTeamId('Bench first default'),
          body: { ...brandBody('Default'), is_default: true },
        }),
    },
    {
      // Like an update that changes the default (the previous default loses its flag).
      name: 'brands create, is_default (replaces the default)',
      endpoint: 'POST /api/v1/brands',
      budget: 2,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/brands', {
          teamId: await defaultsTeam(),
          body: { ...brandBody(unique('Default')), is_default: true },
        }),
    },
    {
      name: 'brands update',
      endpoint: 'PUT /api/v1/brands/{id}',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const { teamId, brandId } = await brandsTeam();
        return request('PUT', '/api/v1/brands/{id}', {
          teamId,
          pathParams: { id: String(brandId) },
          body: { short_description: unique('Updated'), tags: ['bench', unique('tag')] },
        });
      },
    },
    {
      name: 'brands update, makes it the default',
      endpoint: 'PUT /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const state = await defaultSwitch();
        const id = state.ids[state.turn++ % 2] as number;
        return request('PUT', '/api/v1/brands/{id}', {
          teamId: state.teamId,
          pathParams: { id: String(id) },
          body: { is_default: true },
        });
      },
    },
    {
      name: 'brands update, no such brand (404)',
      endpoint: 'PUT /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('PUT', '/api/v1/brands/{id}', {
          teamId: (await brandsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
          body: { name: 'Nobody' },
        }),
    },
    {
      name: 'brands delete (no lists)',
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const teamId = await writerTeam();
        const brand = await createBrand(teamId, { name: unique('Doomed') });
        return request('DELETE', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(brand.id) } });
      },
    },
    {
      name: 'brands delete, the default (no lists)',
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const teamId = await newTeamId('Bench default delete');
        const brand = await createBrand(teamId, { name: 'Only', is_default: true });
        return request('DELETE', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(brand.id) } });
      },
    },
    {
      name: 'brands delete, the default with 150 lists',
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget: 2 + Math.floor(150 / 100),
      expectedStatus: 200,
      warmup: 1,
      iterations: 10,
      next: async () => {
        const teamId = await newTeamId('Bench lists');
        const brandId = await brandWithLists(teamId, 150);
        return request('DELETE', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(brandId) } });
      },
    },
    {
      // Lists link only the default brand; a brand keeps its lists when the default moves on.
      name: 'brands delete, a former default with 10 lists',
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 2,
      iterations: 30,
      next: async () => {
        const teamId = await newTeamId('Bench lists');
        const brandId = await brandWithLists(teamId, 10);
        await createBrand(teamId, { name: unique('Successor'), is_default: true });
        return request('DELETE', '/api/v1/brands/{id}', { teamId, pathParams: { id: String(brandId) } });
      },
    },
    {
      name: 'brands delete, no such brand (404)',
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget: 3,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('DELETE', '/api/v1/brands/{id}', {
          teamId: (await brandsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
        }),
    },
    {
      name: 'brands auto-configure (local fixture site)',
      endpoint: 'POST /api/v1/brands/auto-configure',
      budget: 0,
      expectedStatus: 200,
      warmup: 5,
      iterations: 50,
      next: async () =>
        request('POST', '/api/v1/brands/auto-configure', {
          teamId: await writerTeam(),
          body: { url: (await fixtureSite()).url('/') },
        }),
    },
    {
      name: 'files presign upload',
      endpoint: 'POST /api/v1/files',
      budget: 0,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('POST', '/api/v1/files', {
          teamId: await writerTeam(),
          body: { path: 'logos/bench.png', content_type: 'image/png' },
        }),
    },

    // Contact fields
    {
      name: 'contact fields list (10 fields)',
      endpoint: 'GET /api/v1/contact-fields',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => request('GET', '/api/v1/contact-fields', { teamId: (await fieldsTeam()).teamId }),
    },
    {
      name: 'contact fields list, ?contact_type=person',
      endpoint: 'GET /api/v1/contact-fields',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('GET', '/api/v1/contact-fields', {
          teamId: (await fieldsTeam()).teamId,
          query: { contact_type: ['person'] },
        }),
    },
    {
      name: 'contact fields get',
      endpoint: 'GET /api/v1/contact-fields/{id}',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => {
        const { teamId, fieldId } = await fieldsTeam();
        return request('GET', '/api/v1/contact-fields/{id}', { teamId, pathParams: { id: String(fieldId) } });
      },
    },
    {
      name: "contact fields get, another team's (403)",
      endpoint: 'GET /api/v1/contact-fields/{id}',
      budget: 2,
      expectedStatus: 403,
      warmup: 10,
      iterations: READS,
      next: async () => {
        const { teamId, otherFieldId } = await fieldsTeam();
        return request('GET', '/api/v1/contact-fields/{id}', {
          teamId,
          pathParams: { id: String(otherFieldId) },
        });
      },
    },
    {
      name: 'contact fields get, no such field (404)',
      endpoint: 'GET /api/v1/contact-fields/{id}',
      budget: 2,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('GET', '/api/v1/contact-fields/{id}', {
          teamId: (await fieldsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
        }),
    },
    {
      name: 'contact fields create',
      endpoint: 'POST /api/v1/contact-fields',
      budget: 1,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/contact-fields', {
          teamId: await writerTeam(),
          body: fieldInput(unique('f')),
        }),
    },
    {
      name: 'contact fields create, Idempotency-Key',
      endpoint: 'POST /api/v1/contact-fields',
      budget: 2,
      expectedStatus: 201,
      warmup: 10,
      iterations: WRITES,
      next: async () =>
        request('POST', '/api/v1/contact-fields', {
          teamId: await writerTeam(),
          body: fieldInput(unique('k')),
          headers: { 'Idempotency-Key': unique('key') },
        }),
    },
    {
      name: 'contact fields update, same tag',
      endpoint: 'PUT /api/v1/contact-fields/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const { teamId, fieldId } = await fieldsTeam();
        return request('PUT', '/api/v1/contact-fields/{id}', {
          teamId,
          pathParams: { id: String(fieldId) },
          body: { name: unique('Renamed') },
        });
      },
    },
    {
      name: 'contact fields update, tag change',
      endpoint: 'PUT /api/v1/contact-fields/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const { teamId, fieldId } = await fieldsTeam();
        return request('PUT', '/api/v1/contact-fields/{id}', {
          teamId,
          pathParams: { id: String(fieldId) },
          body: { tag: unique('retagged') },
        });
      },
    },
    {
      name: 'contact fields update, no such field (404)',
      endpoint: 'PUT /api/v1/contact-fields/{id}',
      budget: 3,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('PUT', '/api/v1/contact-fields/{id}', {
          teamId: (await fieldsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
          body: { name: 'Nobody' },
        }),
    },
    {
      name: 'contact fields delete',
      endpoint: 'DELETE /api/v1/contact-fields/{id}',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
      next: async () => {
        const teamId = await writerTeam();
        const field = await createContactField(teamId, fieldInput(unique('doomed')));
        return request('DELETE', '/api/v1/contact-fields/{id}', {
          teamId,
          pathParams: { id: String(field.id) },
        });
      },
    },
    {
      name: 'contact fields delete, no such field (404)',
      endpoint: 'DELETE /api/v1/contact-fields/{id}',
      budget: 3,
      expectedStatus: 404,
      warmup: 10,
      iterations: READS,
      next: async () =>
        request('DELETE', '/api/v1/contact-fields/{id}', {
          teamId: (await fieldsTeam()).teamId,
          pathParams: { id: NO_SUCH_ID },
        }),
    },
    {
      name: 'contact fields types',
      endpoint: 'GET /api/v1/contact-fields/types',
      budget: 0,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => request('GET', '/api/v1/contact-fields/types', { teamId: await writerTeam() }),
    },

    // Pages
    {
      name: 'pages list (20 pages, 2 sites)',
      endpoint: 'GET /api/v1/pages',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => request('GET', '/api/v1/pages', { teamId: (await pagesTeam()).teamId }),
    },
    {
      name: 'pages list, ?site_id[]=',
      endpoint: 'GET /api/v1/pages',
      budget: 2,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => {
        const { teamId, siteId } = await pagesTeam();
        return request('GET', '/api/v1/pages', { teamId, query: { 'site_id[]': [String(siteId)] } });
      },
    },

    // Authorizer (API Gateway caches its answer per token; this is the uncached call)
    {
      name: 'authorizer, valid token',
      endpoint: 'authorizer',
      budget: 1,
      expectedStatus: 200,
      warmup: 10,
      iterations: READS,
      next: async () => authorize(await tokenTeam()),
    },
    {
      name: 'authorizer, unknown token (401)',
      endpoint: 'authorizer',
      budget: 1,
      expectedStatus: 401,
      warmup: 10,
      iterations: READS,
      next: () => authorize(`tm_${'x'.repeat(43)}`),
    },
  ];

  return {
    scenarios,
    close: async () => {
      for (const close of closers) await close();
    },
  };
}
