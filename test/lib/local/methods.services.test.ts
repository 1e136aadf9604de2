import { afterAll, describe, expect, it } from 'vitest';
import { configure } from '../../../shared/config.ts';
import { MESSAGES } from '../../../shared/http/messages.ts';
import { routes } from '../../../shared/routes.ts';
import { newTeam, useApi } from '../../support/api.ts';
import { contractProblems } from '../../support/contract.ts';

/**
 * A method a path does not have is a 405 naming those it has (`Allow`), not a 404: from the local gateway
 * here, from each resource's ANY method in AWS (test/lib/cdk/method-not-allowed.stack.test.ts). HEAD and OPTIONS are such methods
 * too, but for a CORS preflight where the deployment allows browser origins.
 */
const api = useApi();
afterAll(() => configure({ ...process.env }));

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

/** Each path of the route table with its methods in the table's order, collected here on their own. */
const byPath = new Map<string, string[]>();
for (const { path, method } of routes) byPath.set(path, [...(byPath.get(path) ?? []), method]);

/** A URL of the path: every `{name}` a value. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, '4');

async function call(method: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(api.url + path, { method, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

describe('a method the path does not have', () => {
  it('is 405 with Allow naming exactly the path’s methods, a JSON message and the request id', async () => {
    const checked: string[] = [];
    for (const [path, allowed] of byPath) {
      for (const method of METHODS.filter((m) => !allowed.includes(m))) {
        const answer = await call(method, concrete(path));
        const where = `${method} ${path}`;
        expect(answer.status, where).toBe(405);
        expect(answer.headers.get('allow'), where).toBe(allowed.join(', '));
        expect(answer.headers.get('x-request-id'), where).toMatch(/^[0-9a-f-]{36}$/);
        expect(answer.headers.get('content-type'), where).toBe('application/json');
        // A HEAD's answer has no body (its Content-Length is the one a GET of it would have).
        if (method !== 'HEAD') {
          expect(JSON.parse(answer.text), where).toEqual({
            message: `The ${method} method is not supported for ${path}. Supported methods: ${allowed.join(', ')}.`,
          });
        } else expect(answer.text, where).toBe('');
        expect(contractProblems(method, api.url + concrete(path), answer), where).toEqual([]);
        checked.push(where);
      }
    }
    // Every path lacks some of the seven methods: HEAD and OPTIONS at least.
    expect(checked.length).toBeGreaterThanOrEqual(byPath.size * 2);
    expect(checked).toContain('PATCH /api/v1/brands/{id}');
  });

  it('is answered before the authorizer (a token or a bad one alike), whatever the body', async () => {
    const { token } = await newTeam();
    for (const authorization of [`Bearer ${token}`, 'Bearer tm_not_a_token']) {
      const answer = await call('PATCH', '/api/v1/brands/4', { Authorization: authorization });
      expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET, PUT, DELETE']);
      expect(answer.headers.get('ratelimit-policy')).toBeNull();
    }
    const withBody = await fetch(`${api.url}/api/v1/contact-fields/types`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'x'.repeat(100_000),
    });
    expect([withBody.status, withBody.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('is the literal resource’s: DELETE /contact-fields/types names GET only, not the methods of {id}', async () => {
    const answer = await call('DELETE', '/api/v1/contact-fields/types');
    expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET']);
    expect(JSON.parse(answer.text).message).toBe(
      'The DELETE method is not supported for /api/v1/contact-fields/types. Supported methods: GET.',
    );
  });

  it('leaves the path’s own methods to their routes', async () => {
    for (const route of routes) {
      const answer = await call(route.method, concrete(route.path));
      expect(answer.status, `${route.method} ${route.path}`).not.toBe(405);
      expect(answer.headers.get('allow'), `${route.method} ${route.path}`).toBeNull();
    }
  });
});

describe('an unknown path', () => {
  it('stays 404 whatever the method', async () => {
    for (const path of ['/api/v1/nothing', '/', '/api', '/api/v1', '/api/v1/brands/4/more', '/docs/a/b']) {
      for (const method of METHODS) {
        const answer = await call(method, path);
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.headers.get('allow'), `${method} ${path}`).toBeNull();
        if (method !== 'HEAD') expect(JSON.parse(answer.text)).toEqual({ message: MESSAGES.noSuchPath });
      }
    }
  });
});

describe('OPTIONS', () => {
  const preflight = { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT' };

  it('is a 405 without corsOrigins, a preflight too', async () => {
    configure({ ...process.env, CORS_ORIGINS: '' });
    for (const headers of [{}, preflight]) {
      const answer = await call('OPTIONS', '/api/v1/brands/4', headers);
      expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'GET, PUT, DELETE']);
    }
  });

  it('answers a preflight 204 with corsOrigins, and any other OPTIONS 405', async () => {
    configure({ ...process.env, CORS_ORIGINS: preflight.Origin });
    for (const [path, allowed] of byPath) {
      const answered = await call('OPTIONS', concrete(path), preflight);
      expect(answered.status, path).toBe(204);
      expect(answered.headers.get('access-control-allow-origin'), path).toBe(preflight.Origin);
      expect(answered.headers.get('access-control-allow-methods'), path).toBe(
        [...allowed, 'OPTIONS'].join(', '),
      );
      const plain = await call('OPTIONS', concrete(path));
      expect([plain.status, plain.headers.get('allow')], path).toEqual([405, allowed.join(', ')]);
    }
  });
});
