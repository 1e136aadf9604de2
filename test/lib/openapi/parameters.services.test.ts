import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../lib/openapi/operations.ts';
import { routeKey, routes } from '../../../shared/routes.ts';
import { useApi } from '../../support/api.ts';
import { ROOT } from '../../support/processes.ts';
import { restoreSettings, useSettings } from '../../support/settings.ts';

/**
 * The query parameters as the document types them. `limit`, `cursor` and the filters that take
 * one value were documented as arrays (`maxItems: 1`), each twice (`limit` and `limit[]`), so the typed
 * client took `{ limit: [2] }` and the reference page showed two parameters. Now each parameter is
 * documented once, one value unless its operation declares it repeatable, and the server agrees: a
 * repeatable filter given twice is read, any other is refused.
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type Json = any;
const document: Json = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));
const api = useApi();

interface QueryParameter {
  key: string;
  path: string;
  name: string;
  schema: Json;
  repeatable: boolean;
}

const queryParameters: QueryParameter[] = routes.flatMap((route) => {
  const operation = document.paths[route.path][route.method.toLowerCase()];
  const repeatable = OPERATIONS[routeKey(route)]?.repeatable ?? [];
  return (operation.parameters as Json[])
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => ({
      key: routeKey(route),
      path: route.path,
      name: parameter.name,
      schema: parameter.schema,
      repeatable: repeatable.includes(parameter.name),
    }));
});

/** A value each parameter accepts, by name: every query parameter of the document has one here. */
const VALID: Record<string, string> = {
  limit: '1',
  contact_type: 'person',
  site_id: '1',
  type: 'brand.created',
  resource: 'brand:1',
  status: 'failed',
};

afterAll(() => restoreSettings());

describe("the document's query parameters", () => {
  it('are each documented once per operation, without a `name[]` twin', () => {
    expect(queryParameters.length).toBeGreaterThan(10);
    const twice = routes.flatMap((route) => {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const names = (operation.parameters as Json[])
        .filter((parameter) => !parameter.$ref)
        .map((parameter) => `${parameter.in} ${parameter.name.replace(/\[\]$/, '')}`);
      return names
        .filter((name, i) => names.indexOf(name) !== i)
        .map((name) => `${routeKey(route)}: ${name}`);
    });
    expect(twice).toEqual([]);
    expect(queryParameters.filter(({ name }) => name.endsWith('[]'))).toEqual([]);
  });

  it('are one value (integer, string, enum) unless their operation declares them repeatable', () => {
    const misTyped = queryParameters
      .filter(({ schema, repeatable }) =>
        repeatable
          ? schema.type !== 'array' || !(schema.maxItems > 1) || schema.items?.type === 'array'
          : schema.type === 'array' || !['integer', 'string'].includes(schema.type) || 'maxItems' in schema,
      )
      .map(({ key, name, schema }) => `${key} ${name}: ${JSON.stringify(schema)}`);
    expect(misTyped).toEqual([]);
    // limit and cursor of every paged list, and the filters that take one value.
    const scalars = queryParameters.filter(({ repeatable }) => !repeatable);
    expect(new Set(scalars.map(({ name }) => name))).toEqual(
      new Set(['limit', 'cursor', 'contact_type', 'resource', 'status']),
    );
    expect(new Set(scalars.filter(({ name }) => name === 'limit').map(({ schema }) => schema.type))).toEqual(
      new Set(['integer']),
    );
    expect(new Set(scalars.filter(({ name }) => name === 'cursor').map(({ schema }) => schema.type))).toEqual(
      new Set(['string']),
    );
    // A repeatable filter's `name[]=` spelling is read the same: its description says so.
    for (const { key, name } of queryParameters.filter(({ repeatable }) => repeatable)) {
      const parameter = document.paths[key.split(' ')[1] as string][
        key.split(' ')[0]?.toLowerCase() as string
      ].parameters as Json[];
      expect(parameter.find((one) => one.name === name).description, `${key} ${name}`).toContain(
        `\`${name}[]`,
      );
    }
  });

  it('are read as documented: a repeatable filter given twice is a list, any other given twice is refused', async () => {
    const { client } = await api.caller();
    // An endpoint whose attempts and deliveries to list (its URL is never called).
    useSettings({ AUTOCONFIGURE_ALLOW_LOOPBACK: '1' });
    const endpoint = await client.post('/api/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      event_types: ['brand.created'],
    });
    expect(endpoint.status).toBe(201);
    const outcomes = [];
    for (const { key, path, name, repeatable } of queryParameters) {
      const url = path.replace('{id}', String(endpoint.body.id));
      if (name === 'cursor') {
        // No cursor is valid to make up; given twice it is no cursor this API issued: a 400.
        const twice = await client.get(`${url}?cursor=a.b&cursor=a.b`);
        outcomes.push(`${key} ${name}: ${twice.status}`);
        continue;
      }
      const value = VALID[name];
      expect(value, `a valid value of ${name}`).toBeDefined();
      const once = await client.get(`${url}?${name}=${value}`);
      const twice = await client.get(`${url}?${name}=${value}&${name}=${value}`);
      outcomes.push(`${key} ${name}: ${once.status} ${twice.status}`);
      if (!repeatable && twice.status === 422) expect(Object.keys(twice.body.errors), key).toEqual([name]);
    }
    const expected = queryParameters.map(({ key, name, repeatable }) =>
      name === 'cursor' ? `${key} ${name}: 400` : `${key} ${name}: 200 ${repeatable ? 200 : 422}`,
    );
    expect(outcomes).toEqual(expected);
  });
});
