import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReleasedTemplate } from '../../../lib/cdk/released-template.ts';
import {
  areaStackId,
  functionId,
  MAIN_STACK_LOG_GROUPS,
  RouteArea,
  routeArea,
  routesByArea,
} from '../../../lib/cdk/route-areas.ts';
import { routes } from '../../../shared/routes.ts';
import { generatedRoutes, withExtraRoutes } from '../../support/generated-routes.ts';
import { type Synthesized, synthesize } from '../../support/synth.ts';
import { ofType, stringify } from '../../support/template.ts';

/**
 * The route functions live in a nested stack per API area, the methods and today's routes' log
 * groups stay in the main stack (API Gateway refuses a method moved between stacks; a log group is stateful).
 * The production stack with cdk.json's defaults, and with 8 generated routes (a new area), without bundling.
 */
const stacks: Partial<Record<'today' | 'grown', Synthesized>> = {};
beforeAll(() => {
  stacks.today = synthesize({});
  stacks.grown = withExtraRoutes(8, () => synthesize({}));
});
afterAll(() => {
  for (const s of Object.values(stacks)) rmSync(s.outdir, { recursive: true, force: true });
});
const today = () => stacks.today as Synthesized;
const grown = () => stacks.grown as Synthesized;

const areasOf = (s: Synthesized) =>
  s.stack.node.children.filter((child): child is RouteArea => child instanceof RouteArea);
const mainResources = (s: Synthesized, type: string) =>
  Object.entries(s.main.findResources(type)) as Array<[string, { Properties: Record<string, unknown> }]>;

describe('route areas', () => {
  it('names the area by the first segment after /api/v1 (the docs and their document together)', () => {
    expect(routeArea({ path: '/api/v1/brands/{id}' })).toBe('brands');
    expect(routeArea({ path: '/api/v1/webhook-endpoints/{id}/secret/rotate' })).toBe('webhook-endpoints');
    expect(routeArea({ path: '/docs/{asset}' })).toBe('docs');
    expect(routeArea({ path: '/api/v1/openapi.json' })).toBe('docs');
    expect(areaStackId('webhook-endpoints')).toBe('WebhookEndpointsRoutes');
    expect([...routesByArea(routes).values()].flat()).toHaveLength(routes.length);
  });

  it("puts every route's function, role and invoke permission in its area's stack, none in the main stack", () => {
    const s = today();
    const areas = areasOf(s);
    expect(areas.map((area) => area.node.id).sort()).toEqual(
      [...routesByArea(routes).keys()].map(areaStackId).sort(),
    );
    for (const area of areas) {
      for (const { route, fn } of area.functions) {
        expect(areaStackId(routeArea(route)), `${route.method} ${route.path}`).toBe(area.node.id);
        expect(fn.stack).toBe(area);
        expect(fn.role?.stack).toBe(area);
      }
    }
    expect(s.stack.routeFunctions).toHaveLength(routes.length);
    // The main stack's functions: the authorizer, the consumer, the deliverer, the sweeper and CDK's own.
    const routeIds = routes.map((route) => functionId(route.method, route.path));
    const mainFunctions = mainResources(s, 'AWS::Lambda::Function').map(([id]) => id);
    expect(mainFunctions.filter((id) => routeIds.some((route) => id.startsWith(route)))).toEqual([]);
    expect(mainResources(s, 'AWS::Lambda::Permission').length).toBeLessThan(routes.length);
    // Each area stack is its own resource in the main stack, named as its construct.
    for (const area of areas)
      expect(s.main.toJSON().Resources[area.node.id]?.Type).toBe('AWS::CloudFormation::Stack');
  });

  it("lets API Gateway invoke a route's function only from its own method on the stage", () => {
    const s = today();
    const permissions = ofType(s, 'AWS::Lambda::Permission');
    for (const { route, fn } of s.stack.routeFunctions) {
      const id = fn.stack.resolve(fn.functionArn);
      const own = permissions.filter(([, p]) => stringify(p.Properties.FunctionName) === stringify(id));
      expect(own, `${route.method} ${route.path}`).toHaveLength(1);
      const [, permission] = own[0] as [string, { Properties: Record<string, unknown> }];
      expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
      const source = stringify(permission.Properties.SourceArn);
      expect(source).toContain(`/prod/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}"`);
    }
  });

  it('keeps the methods, and the log groups of the routes the main stack had, in the main stack under their logical ids', () => {
    const s = today();
    const methods = mainResources(s, 'AWS::ApiGateway::Method');
    for (const route of routes)
      expect(
        methods.some(([, m]) => m.Properties.HttpMethod === route.method),
        route.method,
      ).toBe(true);
    // Every route of today's table keeps its log group where it was (logical id `<FunctionId>Logs<hash>`).
    expect(MAIN_STACK_LOG_GROUPS).toEqual(routes.map((route) => functionId(route.method, route.path)));
    const logGroups = mainResources(s, 'AWS::Logs::LogGroup').map(([id]) => id);
    for (const id of MAIN_STACK_LOG_GROUPS)
      expect(
        logGroups.filter((logical) => new RegExp(`^${id}Logs[0-9A-F]{8}$`).test(logical)),
        id,
      ).toHaveLength(1);
    // Those of the released template by the very same logical id.
    const released = Object.entries(readReleasedTemplate().Resources ?? {})
      .filter(
        ([id, r]) =>
          r.Type === 'AWS::Logs::LogGroup' && MAIN_STACK_LOG_GROUPS.some((fn) => id.startsWith(`${fn}Logs`)),
      )
      .map(([id]) => id);
    expect(released.length).toBeGreaterThan(10);
    for (const id of released) expect(logGroups).toContain(id);
    // And the functions write to them across the stacks.
    for (const { fn, id } of s.stack.routeFunctions)
      expect(stringify(s.stack.resolve(fn.logGroup.logGroupName)), id).toContain(`${id}Logs`);
  });

  it("gives a route added since its log group in its area's stack, and its area a stack of its own", () => {
    const s = grown();
    const added = generatedRoutes(8);
    const area = areasOf(s).find((each) => each.node.id === areaStackId(routeArea(added[0] as never)));
    expect(area?.functions).toHaveLength(8);
    const mainLogGroups = mainResources(s, 'AWS::Logs::LogGroup').map(([id]) => id);
    for (const { fn, id } of area?.functions ?? []) {
      expect(fn.logGroup.stack, id).toBe(area);
      expect(
        mainLogGroups.some((logical) => logical.startsWith(`${id}Logs`)),
        id,
      ).toBe(false);
    }
    // Today's areas are as they were: a new area adds one stack and touches no other.
    const before = new Map(areasOf(today()).map((a) => [a.node.id, a.functions.map((f) => f.id)]));
    for (const each of areasOf(s).filter((a) => a !== area))
      expect(each.functions.map((f) => f.id)).toEqual(before.get(each.node.id));
  });
});
