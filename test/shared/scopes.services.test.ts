import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { proxyEvent } from '../../lib/local/lambda-events.ts';
import { createToken } from '../../shared/data/tokens.ts';
import type { ProxyHandler } from '../../shared/http/handler.ts';
import { BEARER_CHALLENGE, EXPIRED_TOKEN_CHALLENGE, MESSAGES } from '../../shared/http/messages.ts';
import { type Route, routeKey, routes } from '../../shared/routes.ts';
import { SCOPE_FAMILIES, SCOPES, type Scope, type ScopeFamily } from '../../shared/scopes.ts';
import { apiClient, expectInsufficientScope, newTeam, useApi } from '../support/api.ts';
import { ROOT } from '../support/processes.ts';
import { startReceiver, useReceivers } from '../support/webhook-receiver.ts';

/**
 * Scoped tokens: each route refuses a token without the scope it needs (shared/routes.ts) with
 * 403 `insufficient_scope` and `WWW-Authenticate: Bearer …, error="insufficient_scope", scope="…"` before it
 * reads or writes anything, and a token whose cached authorizer answer outlived its expiry with 401.
 */
const api = useApi();
const receivers = useReceivers();

/** Every scope but those of the families given. */
const allBut = (...families: ScopeFamily[]): Scope[] =>
  SCOPES.filter((scope) => !families.includes(scope.split(':')[0] as ScopeFamily));

/** A client acting for the team with a new token of these scopes (full access when undefined). */
async function tokenClient(teamId: number, scopes?: Scope[]) {
  return apiClient(api.url, await createToken(teamId, scopes === undefined ? {} : { scopes }));
}

/** A team with a full-access client, and a client of the given scopes for the same team. */
async function teamWith(scopes: Scope[]) {
  const team = await newTeam('Scopes', { scopes });
  return { ...team, scoped: apiClient(api.url, team.token), full: await tokenClient(team.teamId) };
}

describe('a token without the scope of a family is refused, and nothing is written', () => {
  it('brands: no brands:write refuses create, update, delete and auto-configure; brands:read still reads', async () => {
    const { scoped, full } = await teamWith(allBut('brands').concat('brands:read'));
    const key = randomUUID();
    const refused = await scoped.post('/api/v1/brands', { name: 'Refused' }, { 'Idempotency-Key': key });
    expectInsufficientScope(refused, 'brands:write', 'POST /api/v1/brands');
    expect((await full.get('/api/v1/brands')).body).toEqual([]);
    // The refused request stored nothing under its key: the same key and body now creates the brand.
    const created = await full.post('/api/v1/brands', { name: 'Refused' }, { 'Idempotency-Key': key });
    expect([created.status, created.headers.get('idempotent-replay')]).toEqual([201, null]);
    const url = `/api/v1/brands/${created.body.id}`;
    expectInsufficientScope(
      await scoped.put(url, { name: 'Changed' }),
      'brands:write',
      `PUT /api/v1/brands/{id}`,
    );
    expectInsufficientScope(await scoped.delete(url), 'brands:write', 'DELETE /api/v1/brands/{id}');
    expectInsufficientScope(
      await scoped.post('/api/v1/brands/auto-configure', { url: 'https://example.com' }),
      'brands:write',
      'POST /api/v1/brands/auto-configure',
    );
    const read = await scoped.get(url);
    expect([read.status, read.body]).toEqual([200, created.body]);
    expect((await scoped.get('/api/v1/brands')).body).toEqual([created.body]);
  });

  it('contact fields: no contact_fields scope refuses every contact field route, and creates nothing', async () => {
    const { scoped, full } = await teamWith(allBut('contact_fields'));
    const field = { name: 'Refused', tag: 'refused', type: 'text', contact_type: 'person' };
    expectInsufficientScope(
      await scoped.post('/api/v1/contact-fields', field),
      'contact_fields:write',
      'POST /api/v1/contact-fields',
    );
    expect((await full.get('/api/v1/contact-fields')).body).toEqual([]);
    expectInsufficientScope(
      await scoped.get('/api/v1/contact-fields'),
      'contact_fields:read',
      'GET /api/v1/contact-fields',
    );
    expectInsufficientScope(
      await scoped.get('/api/v1/contact-fields/types'),
      'contact_fields:read',
      'GET /api/v1/contact-fields/types',
    );
  });

  it('pages: no pages:read refuses the pages list', async () => {
    const { scoped, full } = await teamWith(allBut('pages'));
    expectInsufficientScope(await scoped.get('/api/v1/pages'), 'pages:read', 'GET /api/v1/pages');
    expect((await full.get('/api/v1/pages')).status).toBe(200);
  });

  it('files: no files:write refuses an upload URL, and counts none against the quota', async () => {
    const { scoped, full } = await teamWith(allBut('files').concat('files:read'));
    const upload = { path: 'logos/refused.png', content_type: 'image/png', size: 1 };
    expectInsufficientScope(await scoped.post('/api/v1/files', upload), 'files:write', 'POST /api/v1/files');
    const limits = await scoped.get('/api/v1/limits');
    expect(limits.body.quotas.uploads.used).toBe(0);
    expect(limits.body.quotas.upload_bytes.used).toBe(0);
    expect((await full.post('/api/v1/files', upload)).status).toBe(200);
  });

  it('events: no events:read refuses the events and an event', async () => {
    const { scoped, full } = await teamWith(allBut('events'));
    expectInsufficientScope(await scoped.get('/api/v1/events'), 'events:read', 'GET /api/v1/events');
    expectInsufficientScope(
      await scoped.get('/api/v1/events/evt_00000000000000000000000000'),
      'events:read',
      'GET /api/v1/events/{id}',
    );
    expect((await full.get('/api/v1/events')).status).toBe(200);
  });

  it('webhooks: no webhooks:write refuses an endpoint create, which leaves no endpoint; webhooks:read reads', async () => {
    const { scoped, full } = await teamWith(allBut('webhooks').concat('webhooks:read'));
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = { url: receiver.url, event_types: ['brand.created'] };
    expectInsufficientScope(
      await scoped.post('/api/v1/webhook-endpoints', endpoint),
      'webhooks:write',
      'POST /api/v1/webhook-endpoints',
    );
    const listed = await scoped.get('/api/v1/webhook-endpoints');
    expect([listed.status, listed.body]).toEqual([200, []]);
    const created = await full.post('/api/v1/webhook-endpoints', endpoint);
    expect(created.status).toBe(201);
    const url = `/api/v1/webhook-endpoints/${created.body.id}`;
    expectInsufficientScope(
      await scoped.post(`${url}/secret/rotate`, {}),
      'webhooks:write',
      'POST /api/v1/webhook-endpoints/{id}/secret/rotate',
    );
    expectInsufficientScope(
      await scoped.delete(url),
      'webhooks:write',
      'DELETE /api/v1/webhook-endpoints/{id}',
    );
    const read = await scoped.get(url);
    expect([read.status, read.body.id, read.body.url]).toEqual([200, created.body.id, receiver.url]);
  });
});

describe('what a token of some scopes may do', () => {
  it('a read-only token reads its family but cannot write it, nor touch another family', async () => {
    const { scoped } = await teamWith(['contact_fields:read']);
    expect((await scoped.get('/api/v1/contact-fields')).status).toBe(200);
    expect((await scoped.get('/api/v1/contact-fields/types')).status).toBe(200);
    const field = { name: 'Nope', tag: 'nope', type: 'text', contact_type: 'person' };
    expectInsufficientScope(
      await scoped.post('/api/v1/contact-fields', field),
      'contact_fields:write',
      'POST /api/v1/contact-fields',
    );
    expectInsufficientScope(await scoped.get('/api/v1/brands'), 'brands:read', 'GET /api/v1/brands');
  });

  it("a write token reads its family too (write includes read), and nothing of another family's", async () => {
    const { scoped } = await teamWith(['brands:write']);
    const created = await scoped.post('/api/v1/brands', { name: 'Writer' });
    expect(created.status).toBe(201);
    expect((await scoped.get(`/api/v1/brands/${created.body.id}`)).body).toEqual(created.body);
    expect((await scoped.get('/api/v1/brands')).body).toEqual([created.body]);
    expectInsufficientScope(await scoped.get('/api/v1/events'), 'events:read', 'GET /api/v1/events');
  });

  it('a token of no scope at all may only read its limits', async () => {
    const { scoped } = await teamWith([]);
    expect((await scoped.get('/api/v1/limits')).status).toBe(200);
    expectInsufficientScope(await scoped.get('/api/v1/pages'), 'pages:read', 'GET /api/v1/pages');
  });

  it('a token of full access (made without scopes, as every token before them) does everything', async () => {
    const team = await newTeam('Full access');
    const client = apiClient(api.url, team.token);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const answers = [
      await client.post('/api/v1/brands', { name: 'Full' }),
      await client.post('/api/v1/contact-fields', {
        name: 'F',
        tag: 'f',
        type: 'text',
        contact_type: 'person',
      }),
      await client.get('/api/v1/pages'),
      await client.post('/api/v1/files', { path: 'logos/full.png', content_type: 'image/png', size: 1 }),
      await client.get('/api/v1/events'),
      await client.post('/api/v1/webhook-endpoints', { url: receiver.url, event_types: ['brand.created'] }),
      await client.get('/api/v1/limits'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 200, 200, 200, 201, 200]);
  });

  it('refuses before reading the request: a malformed body is a 403, not a 400', async () => {
    const { scoped } = await teamWith(['brands:read']);
    expectInsufficientScope(
      await scoped.post('/api/v1/brands', '{"name":'),
      'brands:write',
      'POST /api/v1/brands',
    );
  });
});

/** A valid-enough request for each route: any id (the scope is checked before the id is read), a JSON body. */
function requestOf(route: Route): { path: string; body?: unknown } {
  const path = route.path.replace(/\{\w+\}/g, '1');
  return route.method === 'POST' || route.method === 'PUT' ? { path, body: {} } : { path };
}

/** Every scope but what grants `scope`: for a read, the family's read and write; for a write, its write. */
const withoutScope = (scope: Scope): Scope[] =>
  SCOPES.filter(
    (held) => held !== scope && !(scope.endsWith(':read') && held === scope.replace(':read', ':write')),
  );

describe('the whole route table', () => {
  it('refuses each scoped route to a token holding every other scope, naming exactly its scope; its scope admits it', async () => {
    const clients = new Map<string, ReturnType<typeof apiClient>>();
    // A team per set of scopes: one team holds at most LIMITS.liveTokensPerTeam tokens, fewer than the sets.
    const clientOf = async (scopes: Scope[]) => {
      const key = scopes.join(' ');
      let client = clients.get(key);
      if (!client) {
        client = apiClient(api.url, (await newTeam('Route table', { scopes })).token);
        clients.set(key, client);
      }
      return client;
    };
    const call = (client: ReturnType<typeof apiClient>, route: Route) => {
      const { path, body } = requestOf(route);
      if (route.method === 'GET') return client.get(path);
      if (route.method === 'DELETE') return client.delete(path);
      return route.method === 'POST' ? client.post(path, body) : client.put(path, body);
    };
    const scoped = routes.filter((route): route is Route & { scope: Scope } => route.scope !== undefined);
    // Every family has a route, and every route but the public ones and the limits needs a scope.
    expect(new Set(scoped.map((route) => route.scope.split(':')[0]))).toEqual(new Set(SCOPE_FAMILIES));
    expect(routes.filter((route) => !route.public && !route.scope).map(routeKey)).toEqual([
      'GET /api/v1/limits',
    ]);
    for (const route of scoped) {
      const refused = await call(await clientOf(withoutScope(route.scope)), route);
      expectInsufficientScope(refused, route.scope, routeKey(route));
      // With just that scope the route runs (whatever it then answers of the request): not a 403 of scopes.
      const admitted = await call(await clientOf([route.scope]), route);
      expect(admitted.body?.error_code, `${routeKey(route)}: ${admitted.text}`).not.toBe(
        'insufficient_scope',
      );
      expect(admitted.status, routeKey(route)).toBeLessThan(500);
    }
  });
});

describe("the route's own check of the authorizer's cached answer", () => {
  /** GET /api/v1/brands run in-process, as API Gateway invokes it, with this authorizer context. */
  async function listBrands(context: Record<string, string | number>, resource = '/api/v1/brands') {
    const event = proxyEvent(
      { region: 'eu-west-1', apiId: 'abc123', stage: 'prod' },
      {
        method: 'GET',
        resource,
        path: '/api/v1/brands',
        pathParameters: {},
        headers: [['Host', 'abc123.execute-api.eu-west-1.amazonaws.com']],
        query: [],
        body: null,
        requestId: randomUUID(),
        sourceIp: '127.0.0.1',
        authorizer: { principalId: 'test', context },
      },
    );
    const { handler } = (await import('../../functions/brands/list.ts')) as { handler: ProxyHandler };
    const result = await handler(event, {
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => 30_000,
    } as Parameters<ProxyHandler>[1]);
    return { status: result.statusCode, body: JSON.parse(result.body), headers: result.headers ?? {} };
  }

  it('answers 401 invalid_token once the expiry in a cached answer has passed, and 200 before it', async () => {
    const { teamId } = await newTeam('Expiring');
    const now = Math.floor(Date.now() / 1000);
    const expired = await listBrands({ teamId, rateLimitPlan: '', scopes: '*', expiresAt: now - 1 });
    expect(expired).toMatchObject({
      status: 401,
      body: { message: MESSAGES.tokenExpired },
      headers: { 'WWW-Authenticate': EXPIRED_TOKEN_CHALLENGE },
    });
    expect(EXPIRED_TOKEN_CHALLENGE).toBe(
      'Bearer realm="team-messaging-api", error="invalid_token", error_description="The token has expired"',
    );
    expect((await listBrands({ teamId, rateLimitPlan: '', scopes: '*', expiresAt: now + 60 })).status).toBe(
      200,
    );
    expect((await listBrands({ teamId, rateLimitPlan: '', scopes: '*', expiresAt: 0 })).status).toBe(200);
  });

  it('reads an answer cached from before scopes (no `scopes`, no `expiresAt`) as full access', async () => {
    const { teamId } = await newTeam('Cached before scopes');
    expect((await listBrands({ teamId, rateLimitPlan: '' })).status).toBe(200);
    const refused = await listBrands({ teamId, rateLimitPlan: '', scopes: 'pages:read', expiresAt: 0 });
    expect([refused.status, refused.body.required_scope]).toEqual([403, 'brands:read']);
  });

  it('refuses a token of some scopes on a resource the route table lacks (a misconfigured deployment)', async () => {
    const { teamId } = await newTeam('Unknown resource');
    const context = { teamId, rateLimitPlan: '', expiresAt: 0 };
    const refused = await listBrands({ ...context, scopes: 'brands:write' }, '/api/v1/not-a-route');
    expect([refused.status, refused.body]).toEqual([403, { message: MESSAGES.forbidden }]);
    expect((await listBrands({ ...context, scopes: '*' }, '/api/v1/not-a-route')).status).toBe(200);
  });

  it('a token that has expired is refused by the authorizer itself: 401 with the plain challenge', async () => {
    const team = await newTeam('Expired', { expiresAt: new Date(Date.now() - 1000) });
    const refused = await apiClient(api.url, team.token).get('/api/v1/brands');
    expect([refused.status, refused.body, refused.headers.get('www-authenticate')]).toEqual([
      401,
      { message: MESSAGES.unauthenticated },
      BEARER_CHALLENGE,
    ]);
  });
});

describe('the API reference page (docs/api.md)', () => {
  it('names every scope in its "Scopes" section, with the 403 and its header', async () => {
    const reference = await readFile(`${ROOT}/docs/api.md`, 'utf8');
    const section = reference.split('\n## Scopes\n')[1]?.split('\n#')[0] ?? '';
    expect(SCOPES.filter((scope) => !section.includes(`\`${scope}\``))).toEqual([]);
    expect(section).toContain('"error_code": "insufficient_scope"');
    expect(section.replace(/\n/g, ' ')).toContain(
      'WWW-Authenticate: Bearer realm="team-messaging-api", error="insufficient_scope", scope="brands:write"',
    );
  });
});
