import { afterAll, describe, expect, it } from 'vitest';
import { configure } from '../../shared/config.ts';
import { routes } from '../../shared/routes.ts';
import { apiClient, useApi } from '../support/api.ts';
import { synthesize } from '../support/synth.ts';

/**
 * The CORS policy: none by default (the API is called server to server), the deployment's `corsOrigins`
 * otherwise, the same from the local gateway, the handlers and API Gateway's preflight.
 */
const api = useApi();
const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.com';
const preflight = (path: string, origin: string) =>
  fetch(api.url + path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization',
    },
  });

afterAll(() => configure({ ...process.env }));

describe('CORS, by default: no browser origin', () => {
  it('answers a preflight as a method the resource lacks, and no answer names an origin', async () => {
    const answer = await preflight('/api/v1/brands', ALLOWED);
    expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const { client } = await api.caller();
    const list = await client.get('/api/v1/brands', { Origin: ALLOWED });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS with corsOrigins set', () => {
  it('answers an allowed origin’s preflight with the resource’s methods and the headers a client sends', async () => {
    configure({ ...process.env, CORS_ORIGINS: `${ALLOWED},https://admin.example.com` });
    const answer = await preflight('/api/v1/brands/7', ALLOWED);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('access-control-allow-methods')).toBe('GET, PUT, DELETE, OPTIONS');
    expect(answer.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(answer.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(answer.headers.get('vary')).toBe('Origin');
    // The literal resource's methods, not those of `{id}` beside it (as API Gateway picks the resource).
    const types = await preflight('/api/v1/contact-fields/types', ALLOWED);
    expect(types.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
  });

  it('answers an OPTIONS that is not a preflight 405, as the resource’s ANY method does in AWS', async () => {
    configure({ ...process.env, CORS_ORIGINS: ALLOWED });
    const variants: Array<Record<string, string>> = [
      {},
      { Origin: ALLOWED },
      { 'Access-Control-Request-Method': 'GET' },
    ];
    for (const headers of variants) {
      const answer = await fetch(`${api.url}/api/v1/brands/7`, { method: 'OPTIONS', headers });
      expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET, PUT, DELETE']);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('names no origin to a preflight from an origin not allowed, and none on an unknown path', async () => {
    configure({ ...process.env, CORS_ORIGINS: ALLOWED });
    const refused = await preflight('/api/v1/brands', OTHER);
    expect(refused.status).toBe(204);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.headers.get('access-control-allow-methods')).toBeNull();
    expect((await preflight('/api/v1/nothing', ALLOWED)).status).toBe(404);
  });

  it('lets the allowed origin read an answer and its headers, and no other origin', async () => {
    configure({ ...process.env, CORS_ORIGINS: ALLOWED });
    const { client } = await api.caller();
    const created = await client.post('/api/v1/brands', { name: 'Cors' }, { Origin: ALLOWED });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(created.headers.get('access-control-expose-headers')).toContain('ETag');
    const other = await client.get(`/api/v1/brands/${created.body.id}`, { Origin: OTHER });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // A request without a token is refused by the gateway, whose answers carry no CORS header.
    const anonymous = await apiClient(api.url).get('/api/v1/brands', { Origin: ALLOWED });
    expect(anonymous.status).toBe(401);
  });
});

describe('CORS in the stack', () => {
  it('has no preflight by default, one per resource with corsOrigins (in its ANY method), naming only those origins', () => {
    const none = synthesize({});
    const some = synthesize({ context: { corsOrigins: `${ALLOWED},https://admin.example.com` } });
    const preflightsOf = (s: typeof none) =>
      Object.values(s.template.findResources('AWS::ApiGateway::Method')).filter((method) =>
        method.Properties.Integration.IntegrationResponses?.some(
          (response: { StatusCode: string }) => response.StatusCode === '204',
        ),
      );
    expect(preflightsOf(none)).toEqual([]);
    const preflights = preflightsOf(some);
    expect(preflights.length).toBe(new Set(routes.map((route) => route.path)).size);
    for (const method of preflights) {
      expect(method.Properties.HttpMethod).toBe('ANY');
      expect(method.Properties.AuthorizationType).toBe('NONE');
      const [response] = method.Properties.Integration.IntegrationResponses;
      const template = response.ResponseTemplates['application/json'];
      expect(template).toContain(`$origin == "${ALLOWED}" || $origin == "https://admin.example.com"`);
      // The static headers never name an origin: only the template does, for an allowed one.
      expect(JSON.stringify(response.ResponseParameters)).not.toContain('Allow-Origin');
    }
    const fn = Object.values(some.template.findResources('AWS::Lambda::Function')).find(
      (f) => f.Properties.Environment?.Variables?.CORS_ORIGINS,
    );
    expect(fn?.Properties.Environment.Variables.CORS_ORIGINS).toBe(`${ALLOWED},https://admin.example.com`);
  });

  it.each([['*'], ['https://app.example.com/path'], ['app.example.com']])(
    'refuses corsOrigins=%s, naming the key',
    (origin) => {
      expect(() => synthesize({ context: { corsOrigins: origin } })).toThrow(/context corsOrigins/);
    },
  );
});
