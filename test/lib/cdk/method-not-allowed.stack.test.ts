import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../shared/routes.ts';
import { acknowledgments, reportedViolations, type Synthesized, synthesize } from '../../support/synth.ts';

/**
 * In AWS a method a resource lacks is answered 405 by API Gateway itself: each resource of the route table
 * has an ANY method (its own methods take precedence over ANY) with a mock integration, no authorizer and no
 * function, which also answers a CORS preflight when the deployment allows browser origins (one method a
 * resource, not two: room to grow). The local gateway's side is test/lib/local/methods.services.test.ts.
 */
const stacks: Partial<Record<'plain' | 'cors', Synthesized>> = {};
beforeAll(() => {
  stacks.plain = synthesize({});
  stacks.cors = synthesize({ context: { corsOrigins: 'https://app.example.com' } });
});
afterAll(() => {
  for (const s of Object.values(stacks)) rmSync(s.outdir, { recursive: true, force: true });
});
const all = () => [stacks.plain, stacks.cors] as Synthesized[];

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any> };
const resources = (s: Synthesized, type: string) =>
  s.template.findResources(type) as Record<string, Resource>;

/** Each path of the route table with its methods in the table's order, collected here on their own. */
const byPath = new Map<string, string[]>();
for (const { path, method } of routes) byPath.set(path, [...(byPath.get(path) ?? []), method]);

/** `/api/v1/brands/{id}` for an `AWS::ApiGateway::Resource` logical id, by walking its parents. */
function resourcePath(s: Synthesized, id: string): string {
  const resource = resources(s, 'AWS::ApiGateway::Resource')[id];
  if (!resource) return '';
  return `${resourcePath(s, resource.Properties.ParentId.Ref ?? '')}/${resource.Properties.PathPart}`;
}

/** The methods of the stack by resource path and HTTP method. */
function methodsByPath(s: Synthesized): Map<string, Map<string, Resource>> {
  const found = new Map<string, Map<string, Resource>>();
  for (const method of Object.values(resources(s, 'AWS::ApiGateway::Method'))) {
    const path = resourcePath(s, method.Properties.ResourceId.Ref);
    const methods = found.get(path) ?? new Map<string, Resource>();
    methods.set(method.Properties.HttpMethod, method);
    found.set(path, methods);
  }
  return found;
}

/** The 405 integration response's body for a method, as API Gateway renders `$context.httpMethod`. */
const rendered = (template: string, method: string) =>
  JSON.parse(template.replaceAll('$context.httpMethod', method));

/** A 405 integration response naming `allowed`, with the request id and a JSON message. */
function expectMethodNotAllowed(response: Resource['Properties'], path: string, allowed: string[]) {
  expect(response.StatusCode, path).toBe('405');
  expect(response.ResponseParameters, path).toEqual({
    'method.response.header.Allow': `'${allowed.join(', ')}'`,
    'method.response.header.X-Request-Id': 'context.requestId',
  });
  expect(rendered(response.ResponseTemplates['application/json'], 'PATCH'), path).toEqual({
    message: `The PATCH method is not supported for ${path}. Supported methods: ${allowed.join(', ')}.`,
  });
}

describe('CDK stack: a method a resource lacks', () => {
  it('is answered 405 on every resource with methods by an ANY mock naming the path’s methods in Allow', () => {
    for (const s of all()) {
      const found = methodsByPath(s);
      // Only the route table's resources have methods; /api and /api/v1 have none, and stay 404.
      expect([...found.keys()].sort()).toEqual([...byPath.keys()].sort());
      for (const [path, allowed] of byPath) {
        const any = found.get(path)?.get('ANY')?.Properties;
        expect(any, path).toBeDefined();
        expect(any?.AuthorizationType, path).toBe('NONE');
        expect(any?.AuthorizerId, path).toBeUndefined();
        // A mock: no function is invoked (no Uri), and no request body reaches it.
        expect(any?.Integration.Type, path).toBe('MOCK');
        expect(any?.Integration.Uri, path).toBeUndefined();
        expect(any?.Integration.PassthroughBehavior, path).toBe('NEVER');
        const templates = Object.entries(any?.Integration.RequestTemplates ?? {});
        expect(
          templates.map(([type]) => type),
          path,
        ).toContain('application/json');
        // Without CORS origins the mock always answers 405; with them, 405 unless a preflight (below).
        if (s === stacks.plain)
          for (const [, template] of templates)
            expect(JSON.parse(String(template))).toEqual({ statusCode: 405 });
        const responses = any?.Integration.IntegrationResponses ?? [];
        // The 405 is the default response (no selection pattern): whatever else the mock says, 405.
        const defaults = responses.filter(
          (r: { SelectionPattern?: string }) => r.SelectionPattern === undefined,
        );
        expect(defaults, path).toHaveLength(1);
        expectMethodNotAllowed(defaults[0], path, allowed);
        expect(
          any?.MethodResponses.find((r: { StatusCode: string }) => r.StatusCode === '405'),
          path,
        ).toEqual({
          StatusCode: '405',
          ResponseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.X-Request-Id': true,
          },
        });
        // The route's own methods stay beside it (API Gateway prefers them over ANY).
        for (const method of allowed) expect(found.get(path)?.get(method), `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('answers a preflight 204 and any other OPTIONS 405 in the same ANY method where corsOrigins is set: one method a resource besides its routes', () => {
    const found = methodsByPath(stacks.cors as Synthesized);
    for (const [path, allowed] of byPath) {
      expect([...(found.get(path)?.keys() ?? [])].sort(), path).toEqual([...allowed, 'ANY'].sort());
      const any = found.get(path)?.get('ANY')?.Properties;
      const templates = Object.values(any?.Integration.RequestTemplates ?? {}) as string[];
      expect(new Set(templates).size, path).toBe(1);
      const [request = ''] = templates;
      // 204 only for an OPTIONS with both headers a browser's preflight carries, in either case (HTTP/2
      // sends lower case); any other method or OPTIONS is the 405.
      expect(request, path).toContain('$context.httpMethod == "OPTIONS"');
      for (const name of [
        'Origin',
        'origin',
        'Access-Control-Request-Method',
        'access-control-request-method',
      ])
        expect(request, path).toContain(`$!headers.get('${name}')`);
      expect(request.indexOf('{"statusCode": 204}'), path).toBeLessThan(request.indexOf('#else'));
      expect(request.indexOf('{"statusCode": 405}'), path).toBeGreaterThan(request.indexOf('#else'));
      const [preflight, notAllowed, ...others] = any?.Integration.IntegrationResponses ?? [];
      expect(others, path).toEqual([]);
      expect([preflight.StatusCode, preflight.SelectionPattern], path).toEqual(['204', '204']);
      expect(preflight.ResponseParameters['method.response.header.Access-Control-Allow-Methods'], path).toBe(
        `'${[...allowed, 'OPTIONS'].join(', ')}'`,
      );
      expectMethodNotAllowed(notAllowed, path, allowed);
      expect(any?.MethodResponses.map((r: { StatusCode: string }) => r.StatusCode)).toEqual(['204', '405']);
    }
  });

  it('keeps cdk-nag clean, acknowledging only APIG4 and COG4 on the ANY methods, with a reason', () => {
    for (const s of all()) {
      expect(reportedViolations(s.assembly)).toEqual([]);
      const onAny = acknowledgments(s.app).filter(({ path }) => /\/ANY(\/|$)/.test(path));
      expect(onAny.map(({ id }) => id).sort()).toEqual(
        Array.from({ length: byPath.size }, () => ['AwsSolutions-APIG4', 'AwsSolutions-COG4'])
          .flat()
          .sort(),
      );
      for (const { reason } of onAny) expect(reason).toMatch(/405.*no function runs/s);
    }
  });

  it('stays behind the stage’s web ACL and throttle, which cover every method of the stage', () => {
    for (const s of all()) {
      const [stage] = Object.values(resources(s, 'AWS::ApiGateway::Stage'));
      expect(stage?.Properties.MethodSettings).toEqual([
        expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*' }),
      ]);
      const [association, ...others] = Object.values(resources(s, 'AWS::WAFv2::WebACLAssociation'));
      expect(others).toEqual([]);
      expect(JSON.stringify(association?.Properties.ResourceArn)).toContain('/stages/');
    }
  });
});
