import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { buildDocument } from '../../../lib/openapi/document.ts';
import { OPERATIONS } from '../../../lib/openapi/operations.ts';
import { COMMON_STATUSES, routeKey, routes } from '../../../shared/routes.ts';
import { apiClient, useApi } from '../../support/api.ts';
import { contractProblems } from '../../support/contract.ts';
import { ROOT } from '../../support/processes.ts';

const api = useApi();
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type Json = any;
const written = readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8');
const document = JSON.parse(written);

describe('the OpenAPI document', () => {
  it('is what the route table and the schemas build (run `npm run openapi` after changing them)', () => {
    expect(document).toEqual(buildDocument());
  });

  it('describes every route of the table, and nothing else, with every status the route answers', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(routes.map(routeKey).sort());
    for (const route of routes) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, routeKey(route)).toBeDefined();
      // A route that needs a scope answers 403 insufficient_scope to a token without it.
      const scoped = route.scope ? [403] : [];
      const expected = [...new Set([...route.statuses, ...COMMON_STATUSES, ...scoped, 500])]
        .filter((status) => !(route.public && status === 401))
        .map(String)
        .sort();
      expect(Object.keys(operation.responses).sort(), routeKey(route)).toEqual(expected);
    }
  });

  it("names every operation's scope: its security requirement, a line of its description, its 403", () => {
    for (const route of routes) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const key = routeKey(route);
      if (route.public) {
        expect(operation.security, key).toEqual([]);
        continue;
      }
      if (!route.scope) {
        // GET /api/v1/limits: the document's own requirement, a token of any scopes.
        expect([key, operation.security]).toEqual(['GET /api/v1/limits', undefined]);
        expect(operation.responses['403'], key).toBeUndefined();
        continue;
      }
      const [family, level] = route.scope.split(':');
      const granting = level === 'read' ? [route.scope, `${family}:write`] : [route.scope];
      expect(operation.security, key).toEqual(granting.map((scope) => ({ bearerAuth: [scope] })));
      expect(operation.description, key).toContain(`Requires the \`${route.scope}\` scope`);
      const forbidden = operation.responses['403'];
      expect(forbidden.headers['WWW-Authenticate'].description, key).toContain(
        `error="insufficient_scope", scope="${route.scope}"`,
      );
      const schema = forbidden.content['application/json'].schema;
      const refs = (schema.oneOf ?? [schema]).map((one: Json) => one.$ref);
      expect(refs, key).toContain('#/components/schemas/InsufficientScope');
      // The scope table of the introduction lists the operation under its scope.
      const row = document.info.description
        .split('\n')
        .find((line: string) => line.startsWith(`| \`${route.scope}\` |`));
      expect(row, key).toContain(`\`${key}\``);
    }
  });

  it('says what every property, parameter, header, response, schema and the security scheme is', () => {
    const undescribed: string[] = [];
    const needs = (node: { description?: unknown } | undefined, at: string) => {
      if (typeof node?.description !== 'string' || node.description.trim() === '') undescribed.push(at);
    };
    // Every property of every schema, wherever it is (request bodies, responses, components), nested too.
    const walk = (node: unknown, at: string[]): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'example' || key === 'examples') continue;
        if (key === 'properties' && at.at(-1) !== 'properties') {
          for (const [name, property] of Object.entries(value as Record<string, { description?: unknown }>)) {
            needs(property, [...at, key, name].join('/'));
          }
        }
        walk(value, [...at, key]);
      }
    };
    walk(document, []);
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const at = `${method.toUpperCase()} ${path}`;
        for (const parameter of operation.parameters ?? []) {
          if (!parameter.$ref) needs(parameter, `${at} parameter ${parameter.name}`);
        }
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          needs(response, `${at} ${status}`);
          for (const [name, header] of Object.entries(response.headers ?? {}) as Array<[string, Json]>) {
            if (!header.$ref) needs(header, `${at} ${status} header ${name}`);
          }
        }
      }
    }
    for (const kind of ['parameters', 'headers', 'schemas', 'securitySchemes']) {
      for (const [name, component] of Object.entries(document.components[kind] ?? {})) {
        needs(component as { description?: unknown }, `components/${kind}/${name}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('lints clean with Redocly’s recommended rules (no error, no warning)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: written, absoluteRef: 'openapi.json', config });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('is served without a token, naming this deployment as its server, with an ETag that answers 304', async () => {
    const anonymous = apiClient(api.url);
    const response = await anonymous.get('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    // The generated server entry, with this deployment's URL: its description and x-internal stay.
    expect(document.servers).toHaveLength(1);
    expect(response.body).toEqual({ ...document, servers: [{ ...document.servers[0], url: api.url }] });
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const unchanged = await anonymous.get('/api/v1/openapi.json', { 'If-None-Match': `W/"other", ${etag}` });
    expect([unchanged.status, unchanged.text, unchanged.headers.get('etag')]).toEqual([304, '', etag]);
    const stale = await anonymous.get('/api/v1/openapi.json', { 'If-None-Match': '"stale"' });
    expect(stale.status).toBe(200);
    // A token is not needed, and one that is not valid does not matter either.
    expect((await apiClient(api.url, 'tm_not_a_token').get('/api/v1/openapi.json')).status).toBe(200);
  });

  it('is the contract every test response is checked against, and the check finds what it does not describe', async () => {
    const { client } = await api.caller();
    const brand = await client.post('/api/v1/brands', { name: 'Contract' });
    const url = `${api.url}/api/v1/brands/${brand.body.id}`;
    const headers = (extra: Record<string, string> = {}) =>
      new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', ...extra });
    const answer = (status: number, body: unknown, extra?: Record<string, string>) => ({
      status,
      headers: headers(extra),
      text: JSON.stringify(body),
    });
    expect(contractProblems('GET', url, answer(200, brand.body))).toEqual([]);
    const { is_default, ...withoutFlag } = brand.body;
    expect(contractProblems('GET', url, answer(200, withoutFlag)).join()).toMatch(
      /does not match.*is_default/,
    );
    expect(contractProblems('GET', url, answer(200, { ...brand.body, extra: 1 })).join()).toMatch(
      /does not match/,
    );
    expect(contractProblems('GET', url, answer(201, brand.body)).join()).toMatch(
      /status not in the document/,
    );
    expect(contractProblems('GET', url, answer(503, { message: 'x' })).join()).toMatch(/no Retry-After/);
    expect(
      contractProblems('GET', url, answer(200, brand.body, { 'idempotent-replay': 'true' })).join(),
    ).toMatch(/undocumented idempotent-replay/);
    expect(contractProblems('PUT', url, answer(422, { message: 'x' })).join()).toMatch(/errors/);
    // A method the path lacks: the 405 of info.description, Allow naming the path's methods.
    const allow = { allow: 'GET, PUT, DELETE' };
    expect(contractProblems('PATCH', url, answer(405, { message: 'x' }, allow))).toEqual([]);
    expect(contractProblems('PATCH', url, answer(404, { message: 'x' })).join()).toMatch(/answers 405/);
    expect(contractProblems('PATCH', url, answer(405, { message: 'x' }, { allow: 'GET' })).join()).toMatch(
      /Allow GET, the document lists GET, PUT, DELETE/,
    );
    expect(contractProblems('PATCH', url, answer(405, { error: 'x' }, allow)).join()).toMatch(
      /not \{message\}/,
    );
  });
});
