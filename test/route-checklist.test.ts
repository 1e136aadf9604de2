import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocableFunctions } from '../lib/local/invoke.ts';
import { routeSampleEvent } from '../lib/local/sample-events.ts';
import { OPERATIONS } from '../lib/openapi/operations.ts';
import { routesPage } from '../lib/openapi/routes-page.ts';
import { type Route, routeFunctionName, routeKey, routes } from '../shared/routes.ts';

/**
 * docs/adding-a-route.md's steps, each held: a route is its handler, its row and its OpenAPI operation,
 * reached by a test, and everything else derives from the row.
 */
const ROOT = resolve(import.meta.dirname, '..');

/** Every file under `dir` (relative to the repository), recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * How a test names a route's path: the template's literal segments, each parameter as a value, an
 * interpolation or the template's own `{name}`, and nothing of a longer path after it.
 */
function pathPattern(route: Route): RegExp {
  const source = route.path
    .split(/(\{\w+\})/)
    .map((part) =>
      /^\{\w+\}$/.test(part)
        ? '(?:\\$\\{[^}]+\\}|[^/\\s\'"`?]+)'
        : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`${source}(?![\\w/-])`);
}

describe('the route checklist', () => {
  it('has a handler file exporting `handler` for every row of the route table', () => {
    const missing = routes
      .filter((route) => {
        const file = join(ROOT, route.handler);
        return !existsSync(file) || !/export const handler\b/.test(readFileSync(file, 'utf8'));
      })
      .map((route) => `${routeKey(route)}: ${route.handler}`);
    expect(missing).toEqual([]);
  });

  it('has a row for every handler under functions/, or declares it a function that is not a route', () => {
    const declared = new Set(invocableFunctions().map((fn) => fn.handler));
    const handlers = filesUnder('functions').filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.d.ts'),
    );
    expect(handlers.filter((file) => !declared.has(file))).toEqual([]);
    // The four that are not routes are declared beside the table, not as rows.
    expect(
      invocableFunctions()
        .filter((fn) => !fn.route)
        .map((fn) => fn.handler),
    ).toEqual([
      'functions/authorizer.ts',
      'functions/events/stream-consumer.ts',
      'functions/webhooks/sweeper.ts',
      'functions/webhooks/deliverer.ts',
    ]);
  });

  it('has an OpenAPI operation for every row, and none without a row', () => {
    expect(routes.map(routeKey).filter((key) => !OPERATIONS[key])).toEqual([]);
    expect(Object.keys(OPERATIONS).filter((key) => !routes.some((route) => routeKey(route) === key))).toEqual(
      [],
    );
  });

  it('derives a distinct function name and a sample event for every route', () => {
    const names = routes.map(routeFunctionName);
    expect(new Set(names).size).toBe(routes.length);
    for (const route of routes) {
      const event = routeSampleEvent(route);
      expect(event, routeKey(route)).toMatchObject({ httpMethod: route.method, resource: route.path });
      // The sample path fills every parameter of the template, and the body (if any) is JSON.
      expect(event.path, routeKey(route)).not.toMatch(/[{}]/);
      expect(Object.keys(event.pathParameters ?? {})).toEqual(
        [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name),
      );
      if (event.body !== null) expect(() => JSON.parse(event.body as string), routeKey(route)).not.toThrow();
    }
  });

  it('keeps docs/routes.md as `npm run openapi` writes it from the table and the operations', () => {
    const page = readFileSync(join(ROOT, 'docs', 'routes.md'), 'utf8');
    expect(page).toBe(routesPage());
    for (const route of routes) expect(page).toContain(`| \`${route.method}\` | \`${route.path}\` |`);
  });

  it('reaches every route from at least one test file, by its path or its handler', () => {
    const self = relative(ROOT, import.meta.filename);
    const tests = filesUnder('test')
      .filter((file) => file.endsWith('.ts') && file !== self)
      .map((file) => readFileSync(join(ROOT, file), 'utf8'));
    const unreached = routes
      .filter((route) => {
        const pattern = pathPattern(route);
        return !tests.some((text) => pattern.test(text) || text.includes(route.handler));
      })
      .map(routeKey);
    expect(unreached).toEqual([]);
  });

  it('tells a route’s path from a longer one and from a test’s interpolated id', () => {
    const brand = pathPattern({ method: 'GET', path: '/api/v1/brands/{id}', handler: '', statuses: [] });
    // A test's template literal, as its source text holds it.
    const interpolated = ['client.get(`/api/v1/brands/', '$', '{brand.id}`)'].join('');
    expect(brand.test(interpolated)).toBe(true);
    expect(brand.test("GET /api/v1/brands/{id}'")).toBe(true);
    expect(brand.test("'/api/v1/brands/12'")).toBe(true);
    expect(brand.test("'/api/v1/brands/12/images'")).toBe(false);
    const list = pathPattern({ method: 'GET', path: '/api/v1/brands', handler: '', statuses: [] });
    expect(list.test("'/api/v1/brands/auto-configure'")).toBe(false);
    expect(list.test("'/api/v1/brands?limit=2'")).toBe(true);
  });

  it('names every step in docs/adding-a-route.md, with the files the steps edit', () => {
    const steps = readFileSync(join(ROOT, 'docs', 'adding-a-route.md'), 'utf8');
    for (const named of [
      'shared/data/',
      'functions/<area>/',
      'shared/routes.ts',
      'lib/openapi/operations.ts',
      'test/lib/cdk/least-privilege.services.test.ts',
      'npm run openapi',
      'test/route-checklist.test.ts',
    ]) {
      expect(steps).toContain(named);
    }
  });
});
