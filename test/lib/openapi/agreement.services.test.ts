import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../shared/domain/event-shape.ts';
import { routeKey, routes } from '../../../shared/routes.ts';
import { apiClient, useApi } from '../../support/api.ts';
import { ROOT } from '../../support/processes.ts';

/**
 * The document's side: where the document said less or other than the server does. A
 * body that is not JSON is a documented 415; redeliver's body is optional and rotate takes none; every URL
 * is http(s) by its schema; `options` are distinct by `uniqueItems`; the reference routes' headers are
 * named; the API reference page's (docs/api.md) event type limit is the code's.
 */
// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON.
type Json = any;
const document: Json = JSON.parse(readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8'));
const apiReference = readFileSync(`${ROOT}/docs/api.md`, 'utf8');
const api = useApi();

const operationOf = (method: string, path: string): Json => document.paths[path][method.toLowerCase()];

/** Every schema object of the document with its JSON pointer, nested ones too. */
function schemasIn(node: Json, at = ''): Array<{ at: string; schema: Json }> {
  if (node === null || typeof node !== 'object') return [];
  const own = typeof node.type === 'string' || node.format ? [{ at, schema: node }] : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([key, value]) =>
      key === 'example' || key === 'examples' ? [] : schemasIn(value, `${at}/${key}`),
    ),
  ];
}

describe('the document says what the server does', () => {
  it('documents 415 {message} on every POST and PUT, which read a JSON body', () => {
    const writes = routes.filter((route) => route.method === 'POST' || route.method === 'PUT');
    expect(writes.length).toBeGreaterThan(5);
    const missing = writes.filter((route) => {
      const response = operationOf(route.method, route.path).responses['415'];
      return (
        response?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Message' ||
        !response.description.includes('application/json')
      );
    });
    expect(missing.map(routeKey)).toEqual([]);
    // Reads take no body: no 415.
    const reads = routes.filter((route) => route.method === 'GET' || route.method === 'DELETE');
    expect(
      reads.filter((route) => operationOf(route.method, route.path).responses['415']).map(routeKey),
    ).toEqual([]);
  });

  it('marks redeliver’s body optional, as the server reads none, and documents no body of rotate', async () => {
    const redeliver = operationOf('POST', '/api/v1/events/{id}/redeliver');
    expect(redeliver.requestBody.required).toBe(false);
    expect(operationOf('POST', '/api/v1/webhook-endpoints/{id}/secret/rotate').requestBody).toBeUndefined();
    // Every other body is required.
    const required = routes
      .map((route) => [routeKey(route), operationOf(route.method, route.path).requestBody?.required])
      .filter(([, value]) => value === false);
    expect(required).toEqual([['POST /api/v1/events/{id}/redeliver', false]]);
  });

  it('types every URL, asked for or answered, as http(s): `format: uri` with a pattern of the scheme', () => {
    const urls = schemasIn(document).filter(({ schema }) => schema.format === 'uri');
    expect(urls.length).toBeGreaterThan(10);
    const open = urls.filter(({ schema }) => {
      const pattern = new RegExp(schema.pattern ?? '');
      return (
        schema.pattern === undefined ||
        !['https://acme.example', 'http://acme.example/a'].every((url) => pattern.test(url)) ||
        ['ftp://acme.example', 'javascript:alert(1)', 'acme.example'].some((url) => pattern.test(url))
      );
    });
    expect(open.map(({ at }) => at)).toEqual([]);
  });

  it('says `options` are distinct (uniqueItems) wherever they are a list', () => {
    const lists = schemasIn(document).filter(
      ({ at, schema }) => /\/properties\/options(\/anyOf\/\d+)?$/.test(at) && schema.type === 'array',
    );
    // The create's, the update's, the representation's, an event's former values.
    expect(lists.length).toBeGreaterThanOrEqual(4);
    expect(lists.filter(({ schema }) => schema.uniqueItems !== true).map(({ at }) => at)).toEqual([]);
  });

  it('names every header the reference page, its script and this document are answered with', async () => {
    const client = apiClient(api.url);
    // Headers of any HTTP answer, or of the server's framing, outside the document.
    const generic = new Set([
      'content-type',
      'content-length',
      'date',
      'connection',
      'keep-alive',
      'transfer-encoding',
    ]);
    const unnamed: string[] = [];
    for (const [template, path] of [
      ['/docs', '/docs'],
      ['/docs/{asset}', '/docs/redoc.standalone.js'],
      ['/docs/{asset}', `/docs/redoc.standalone.js?v=${readRedocVersion()}`],
      ['/api/v1/openapi.json', '/api/v1/openapi.json'],
    ] as const) {
      const first = await client.get(path);
      const again = await client.get(path, { 'If-None-Match': first.headers.get('etag') ?? '' });
      for (const answer of [first, again]) {
        const named = Object.keys(
          operationOf('GET', template).responses[String(answer.status)]?.headers ?? {},
        ).map((name) => name.toLowerCase());
        for (const header of answer.headers.keys()) {
          if (!generic.has(header) && !named.includes(header))
            unnamed.push(`${path} ${answer.status}: ${header}`);
        }
      }
      expect([first.status, again.status], path).toEqual([200, 304]);
    }
    expect(unnamed).toEqual([]);
    // And the values are those the document names (its enums).
    const page = await client.get('/docs');
    const headers = document.components.headers;
    expect(headers.ContentSecurityPolicy.schema.enum).toContain(page.headers.get('content-security-policy'));
    expect(headers.CacheControl.schema.enum).toContain(page.headers.get('cache-control'));
  });

  it('says in the API reference page and the document how many event types `type` of GET /events takes: one per type', () => {
    const events = operationOf('GET', '/api/v1/events');
    const type = events.parameters.find((parameter: Json) => parameter.name === 'type');
    expect(type.schema.maxItems).toBe(EVENT_TYPES.length);
    const row = apiReference.split('\n').find((line) => line.startsWith('| `type` of `GET /events`'));
    expect(row).toContain(`| ${EVENT_TYPES.length} values`);
    // The Change events section says it too.
    const said = [...apiReference.matchAll(/An unknown type, more than (\d+) values/g)].map((match) =>
      Number(match[1]),
    );
    expect(said).toEqual([EVENT_TYPES.length]);
    expect(type.description).toContain(`at most ${EVENT_TYPES.length} values`);
  });
});

function readRedocVersion(): string {
  return JSON.parse(readFileSync(`${ROOT}/node_modules/redoc/package.json`, 'utf8')).version;
}
