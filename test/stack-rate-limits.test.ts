import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionId } from '../lib/cdk/team-messaging-stack.ts';
import { EMPTY_PLAN_PATTERN, RATE_LIMIT_DEFAULTS } from '../shared/rate-limits.ts';
import { routes } from '../shared/routes.ts';
import {
  defaultAndOverridden,
  logicalId,
  reportedViolations,
  type Synthesized,
  synthesize,
} from './support/synth.ts';

/**
 * Per-team rate limits in the stack: AWS WAF rate-based rules on the stage, one per plan, counting each token,
 * with a regex pattern set of teams per named plan. The production stack with cdk.json's defaults (one named
 * plan), the dev stack with `-c` overrides (strings, as the CLI passes them; two named plans) and a stack
 * with the default plan only, synthesized once each.
 */
const OVERRIDES = {
  rateLimitPlans:
    '{"tiny": {"limit": 10, "windowSeconds": 60}, "big": {"limit": 900, "windowSeconds": 300}, ' +
    '"huge": {"limit": 6000, "windowSeconds": 120}}',
  defaultRateLimitPlan: 'tiny',
};
const ONE_PLAN = {
  rateLimitPlans: '{"only": {"limit": 50, "windowSeconds": 600}}',
  defaultRateLimitPlan: 'only',
};

const stacks = defaultAndOverridden(OVERRIDES);
let onePlan: Synthesized;
beforeAll(() => {
  onePlan = synthesize({ full: false, context: ONE_PLAN });
});
afterAll(() => {
  if (onePlan) rmSync(onePlan.outdir, { recursive: true, force: true });
});
const all = () => [stacks.synth, stacks.overridden, onePlan];

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any> };
const resources = (s: Synthesized, type: string) =>
  s.template.findResources(type) as Record<string, Resource>;
const only = (s: Synthesized, type: string): [string, Resource] => {
  const found = Object.entries(resources(s, type));
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Resource];
};
const stackName = (s: Synthesized) => s.stack.stackName;

/** The logical id of a named plan's regex pattern set, found by its name. */
function setId(s: Synthesized, plan: string): string {
  const [id] = Object.entries(resources(s, 'AWS::WAFv2::RegexPatternSet')).find(
    ([, set]) => set.Properties.Name === `${stackName(s)}-plan-${plan}`,
  ) ?? [''];
  expect(id, plan).not.toBe('');
  return id;
}

/** What a rule matches a named plan's tokens with: its set, on the lower-cased Authorization header. */
const inSet = (s: Synthesized, plan: string) => ({
  RegexPatternSetReferenceStatement: {
    Arn: { 'Fn::GetAtt': [setId(s, plan), 'Arn'] },
    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
    TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
  },
});

/** The web ACL's rules as plan, priority, limit, window and scope-down. */
function rulesOf(s: Synthesized) {
  const [, acl] = only(s, 'AWS::WAFv2::WebACL');
  return (acl.Properties.Rules as Array<Resource['Properties']>).map((rule) => {
    expect(rule.Action, rule.Name).toEqual({ Block: {} });
    expect(rule.VisibilityConfig, rule.Name).toEqual({
      CloudWatchMetricsEnabled: true,
      MetricName: rule.Name,
      SampledRequestsEnabled: true,
    });
    const { Limit, EvaluationWindowSec, AggregateKeyType, CustomKeys, ScopeDownStatement, ...rest } =
      rule.Statement.RateBasedStatement;
    expect(rest, rule.Name).toEqual({});
    // Counted per token: the Authorization header, its scheme's case set aside.
    expect(AggregateKeyType, rule.Name).toBe('CUSTOM_KEYS');
    expect(CustomKeys, rule.Name).toEqual([
      { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }] } },
    ]);
    return {
      name: rule.Name,
      priority: rule.Priority,
      limit: Limit,
      window: EvaluationWindowSec,
      scope: ScopeDownStatement,
    };
  });
}

/** WAF's patterns for names and descriptions: CloudFormation would refuse anything else at deploy time. */
const WAF_NAME = /^[0-9A-Za-z_-]{1,128}$/;
const WAF_DESCRIPTION = /^[a-zA-Z0-9=:#@/\-,.][a-zA-Z0-9+=:#@/\-,.\s]+[a-zA-Z0-9+=:#@/\-,.]{1,256}$/;

describe('CDK stack: per-team rate limits', () => {
  it('leaves API keys behind: no usage plan, no key, no method requiring one, no key source', () => {
    for (const s of all()) {
      expect(Object.keys(resources(s, 'AWS::ApiGateway::UsagePlan'))).toEqual([]);
      expect(Object.keys(resources(s, 'AWS::ApiGateway::ApiKey'))).toEqual([]);
      const methods = Object.values(resources(s, 'AWS::ApiGateway::Method'));
      expect(methods.length).toBeGreaterThan(0);
      for (const method of methods) expect(method.Properties.ApiKeyRequired).toBeUndefined();
      const [, api] = only(s, 'AWS::ApiGateway::RestApi');
      expect(api.Properties.ApiKeySourceType).toBeUndefined();
    }
  });

  it('makes an empty regex pattern set per named plan, with a fixed name and nothing that changes', () => {
    const setsOf = (s: Synthesized) =>
      Object.values(resources(s, 'AWS::WAFv2::RegexPatternSet')).map(({ Properties: p }) => {
        expect(p.Scope).toBe('REGIONAL');
        expect(p.Description).toMatch(WAF_DESCRIPTION);
        expect(p.Name).toMatch(WAF_NAME);
        // A literal: a CloudFormation update would put back the empty list over the admin CLI's teams.
        expect(JSON.stringify(p)).not.toMatch(/"(Ref|Fn::[A-Za-z]+)"/);
        return { name: p.Name, patterns: p.RegularExpressionList };
      });
    expect(setsOf(stacks.synth)).toEqual([
      { name: 'TeamMessagingApi-plan-bulk', patterns: [EMPTY_PLAN_PATTERN] },
    ]);
    expect(setsOf(stacks.overridden)).toEqual([
      { name: 'TeamMessagingApiDev-plan-big', patterns: [EMPTY_PLAN_PATTERN] },
      { name: 'TeamMessagingApiDev-plan-huge', patterns: [EMPTY_PLAN_PATTERN] },
    ]);
    expect(setsOf(onePlan)).toEqual([]);
  });

  it('puts a regional web ACL on the stage that allows what no rule blocks, with metrics and samples', () => {
    for (const s of all()) {
      const [aclId, acl] = only(s, 'AWS::WAFv2::WebACL');
      expect(acl.Properties).toMatchObject({
        Name: `${stackName(s)}-rate-limits`,
        Scope: 'REGIONAL',
        DefaultAction: { Allow: {} },
        VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true },
      });
      expect(acl.Properties.Description).toMatch(WAF_DESCRIPTION);
      expect(acl.Properties.Name).toMatch(WAF_NAME);
      const [stageId] = only(s, 'AWS::ApiGateway::Stage');
      const [apiId] = only(s, 'AWS::ApiGateway::RestApi');
      const [, association] = only(s, 'AWS::WAFv2::WebACLAssociation');
      expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
      // The stage's ARN, naming the stage by its Ref: CloudFormation creates the stage first.
      expect(association.Properties.ResourceArn).toEqual({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':apigateway:',
            { Ref: 'AWS::Region' },
            '::/restapis/',
            { Ref: apiId },
            '/stages/',
            { Ref: stageId },
          ],
        ],
      });
    }
  });

  it("blocks each plan's tokens over its limit: a named plan's by its set, the default's by none of them", () => {
    expect(rulesOf(stacks.synth)).toEqual([
      {
        name: 'plan-standard',
        priority: 0,
        limit: 1500,
        window: 60,
        scope: { NotStatement: { Statement: inSet(stacks.synth, 'bulk') } },
      },
      { name: 'plan-bulk', priority: 1, limit: 3000, window: 60, scope: inSet(stacks.synth, 'bulk') },
    ]);
    const dev = stacks.overridden;
    expect(rulesOf(dev)).toEqual([
      {
        name: 'plan-tiny',
        priority: 0,
        limit: 10,
        window: 60,
        scope: {
          NotStatement: {
            Statement: { OrStatement: { Statements: [inSet(dev, 'big'), inSet(dev, 'huge')] } },
          },
        },
      },
      { name: 'plan-big', priority: 1, limit: 900, window: 300, scope: inSet(dev, 'big') },
      { name: 'plan-huge', priority: 2, limit: 6000, window: 120, scope: inSet(dev, 'huge') },
    ]);
    // With the default plan alone, its rule counts every token.
    expect(rulesOf(onePlan)).toEqual([
      { name: 'plan-only', priority: 0, limit: 50, window: 600, scope: undefined },
    ]);
    for (const s of all()) for (const rule of rulesOf(s)) expect(rule.name).toMatch(WAF_NAME);
  });

  it('answers a blocked request 429 with the longest plan window as Retry-After and the request id', () => {
    const rateLimited = (s: Synthesized) =>
      Object.values(resources(s, 'AWS::ApiGateway::GatewayResponse')).find(
        (r) => r.Properties.ResponseType === 'WAF_FILTERED',
      )?.Properties;
    for (const [s, retryAfter] of [
      [stacks.synth, '60'],
      [stacks.overridden, '300'],
      [onePlan, '600'],
    ] as const) {
      const response = rateLimited(s);
      expect(response?.StatusCode).toBe('429');
      expect(JSON.parse(response?.ResponseTemplates['application/json'])).toEqual({
        message: 'Too Many Attempts.',
      });
      expect(response?.ResponseParameters).toEqual({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.Retry-After': `'${retryAfter}'`,
      });
    }
  });

  it('points the admin CLI at the API (for migrate), the default plan and each named plan set, and outputs the web ACL', () => {
    const outputs = (s: Synthesized) => s.template.findOutputs('*');
    const target = (s: Synthesized) => outputs(s).AdminTarget?.Value['Fn::Join'];
    const planSet = (s: Synthesized, plan: string) => ({
      'Fn::Join': ['=', [plan, { 'Fn::GetAtt': [setId(s, plan), 'Arn'] }]],
    });
    for (const s of all()) {
      const [apiId] = only(s, 'AWS::ApiGateway::RestApi');
      const [aclId] = only(s, 'AWS::WAFv2::WebACL');
      const [separator, flags] = target(s);
      expect(separator).toBe(' ');
      expect(flags.slice(6, 8)).toEqual(['--rest-api', { Ref: apiId }]);
      expect(outputs(s).WebAclArn?.Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    }
    // CloudFormation's join is given adjacent literal flags as one string.
    expect(target(stacks.synth)[1].slice(8)).toEqual([
      '--default-plan standard --plan-sets',
      planSet(stacks.synth, 'bulk'),
    ]);
    expect(target(stacks.overridden)[1].slice(8)).toEqual([
      '--default-plan tiny --plan-sets',
      { 'Fn::Join': [',', [planSet(stacks.overridden, 'big'), planSet(stacks.overridden, 'huge')]] },
    ]);
    expect(target(onePlan)[1].slice(8)).toEqual(['--default-plan only']);
  });

  it('tells every route behind the authorizer the plans, so GET /api/v1/limits answers the deployment’s', () => {
    const limitsOf = (s: Synthesized) =>
      new Set(
        Object.values(resources(s, 'AWS::Lambda::Function'))
          .map((fn) => fn.Properties.Environment?.Variables?.RATE_LIMITS)
          .filter(Boolean),
      );
    // Those routes and no other function: the ones that tell a caller its plan (RateLimit-Policy).
    for (const s of all()) {
      const functions = Object.entries(resources(s, 'AWS::Lambda::Function'));
      const carrying = functions.filter(([, fn]) => fn.Properties.Environment?.Variables?.RATE_LIMITS);
      const behindAuthorizer = routes
        .filter((route) => !route.public)
        .map((route) => s.stack.node.findChild(functionId(route.method, route.path)).node.defaultChild);
      expect(carrying.map(([id]) => id).sort()).toEqual(
        behindAuthorizer.map((fn) => logicalId(s.stack, fn)).sort(),
      );
    }
    expect([...limitsOf(stacks.synth)].map((text) => JSON.parse(text))).toEqual([RATE_LIMIT_DEFAULTS]);
    expect([...limitsOf(stacks.overridden)].map((text) => JSON.parse(text))).toEqual([
      { plans: JSON.parse(OVERRIDES.rateLimitPlans), defaultPlan: 'tiny' },
    ]);
  });

  it('stays clean of AwsSolutions findings, the stage now behind a web ACL', () => {
    for (const s of all()) expect(reportedViolations(s.assembly)).toEqual([]);
  });

  it.each([
    [
      { rateLimitPlans: '{"standard": {"limit": 5, "windowSeconds": 60}}' },
      /rateLimitPlans.standard.limit: a whole number, 10 or more/,
    ],
    // AWS WAF's highest rate limit.
    [
      { rateLimitPlans: '{"standard": {"limit": 2000000001, "windowSeconds": 60}}' },
      /rateLimitPlans.standard.limit: a whole number, 10 or more and 2000000000 at most/,
    ],
    [
      { rateLimitPlans: '{"standard": {"limit": 10.5, "windowSeconds": 60}}' },
      /rateLimitPlans.standard.limit: a whole number/,
    ],
    [{ rateLimitPlans: '{"standard": {"windowSeconds": 60}}' }, /rateLimitPlans.standard.limit/],
    [
      { rateLimitPlans: '{"standard": {"limit": 100, "windowSeconds": 30}}' },
      /rateLimitPlans.standard.windowSeconds: one of 60, 120, 300, 600/,
    ],
    [{ rateLimitPlans: '{"standard": {"limit": 100}}' }, /rateLimitPlans.standard.windowSeconds: one of/],
    [
      { rateLimitPlans: '{"standard": {"rate": 5, "burst": 5}}' },
      /rateLimitPlans.standard.rate: unknown \(limit, windowSeconds\)/,
    ],
    [
      { rateLimitPlans: '{"Gold Plan": {"limit": 100, "windowSeconds": 60}}' },
      /rateLimitPlans.Gold Plan: a-z/,
    ],
    [{ rateLimitPlans: '{}' }, /rateLimitPlans: at least one plan/],
    [{ defaultRateLimitPlan: 'gold' }, /defaultRateLimitPlan: one of standard, bulk/],
  ])('refuses the context %j, naming the key', (context, message) => {
    expect(() => synthesize({ full: false, context })).toThrow(message);
  });
});
