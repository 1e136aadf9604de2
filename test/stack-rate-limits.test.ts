import { describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.ts';
import {
  DEFAULT_RATE_LIMIT_PLAN_TAG,
  RATE_LIMIT_DEFAULTS,
  RATE_LIMIT_PLAN_TAG,
} from '../shared/rate-limits.ts';
import { defaultAndOverridden, reportedViolations, type Synthesized, synthesize } from './support/synth.ts';

/**
 * Per-team rate limits in the stack: the authorizer names the team's API key, every authenticated method
 * requires one, and each context plan is a usage plan on the stage. The production stack with cdk.json's
 * defaults and the dev stack with `-c` overrides (strings, as the CLI passes them), synthesized once each.
 */
const OVERRIDES = {
  rateLimitPlans: '{"tiny": {"rate": 5, "burst": 5}, "big": {"rate": 80, "burst": 160, "dailyQuota": 9000}}',
  defaultRateLimitPlan: 'tiny',
};

const stacks = defaultAndOverridden(OVERRIDES);

// biome-ignore lint/suspicious/noExplicitAny: tests read synthesized CloudFormation loosely and assert on it.
type Resource = { Type: string; Properties: Record<string, any> };
const resources = (s: Synthesized, type: string) =>
  s.template.findResources(type) as Record<string, Resource>;

describe('CDK stack: per-team rate limits', () => {
  it('takes the API key from the authorizer, never from a header', () => {
    for (const s of [stacks.synth, stacks.overridden]) {
      const [api] = Object.values(resources(s, 'AWS::ApiGateway::RestApi'));
      expect(api?.Properties.ApiKeySourceType).toBe('AUTHORIZER');
    }
  });

  it('requires an API key on every authenticated method, and on no public one', () => {
    const methods = Object.values(resources(stacks.synth, 'AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(routes.length);
    const paths = Object.fromEntries(
      Object.entries(resources(stacks.synth, 'AWS::ApiGateway::Resource')).map(([id, r]) => [id, r]),
    );
    const fullPath = (id: string): string => {
      const resource = paths[id];
      if (!resource) return '';
      const parent = resource.Properties.ParentId?.Ref;
      return `${parent ? fullPath(parent) : ''}/${resource.Properties.PathPart}`;
    };
    for (const route of routes) {
      const method = methods.find(
        (m) =>
          m.Properties.HttpMethod === route.method && fullPath(m.Properties.ResourceId.Ref) === route.path,
      );
      expect(method, `${route.method} ${route.path}`).toBeDefined();
      if (route.public) expect(method?.Properties.ApiKeyRequired, route.path).toBeUndefined();
      else expect(method?.Properties.ApiKeyRequired, route.path).toBe(true);
    }
    expect(routes.some((route) => route.public)).toBe(true);
  });

  it('makes one usage plan per context plan, with its throttle and quota, on the stage', () => {
    const plansOf = (s: Synthesized) => {
      const [stageId] = Object.keys(resources(s, 'AWS::ApiGateway::Stage'));
      const [apiId] = Object.keys(resources(s, 'AWS::ApiGateway::RestApi'));
      return Object.values(resources(s, 'AWS::ApiGateway::UsagePlan')).map(({ Properties: p }) => {
        expect(p.ApiStages).toMatchObject([{ ApiId: { Ref: apiId }, Stage: { Ref: stageId } }]);
        return { name: p.UsagePlanName, throttle: p.Throttle, quota: p.Quota };
      });
    };
    expect(plansOf(stacks.synth)).toEqual([
      {
        name: 'TeamMessagingApi-standard',
        throttle: { RateLimit: 25, BurstLimit: 50 },
        quota: undefined,
      },
      {
        name: 'TeamMessagingApi-bulk',
        throttle: { RateLimit: 50, BurstLimit: 100 },
        quota: { Limit: 1_000_000, Period: 'DAY' },
      },
    ]);
    expect(plansOf(stacks.overridden)).toEqual([
      { name: 'TeamMessagingApiDev-tiny', throttle: { RateLimit: 5, BurstLimit: 5 }, quota: undefined },
      {
        name: 'TeamMessagingApiDev-big',
        throttle: { RateLimit: 80, BurstLimit: 160 },
        quota: { Limit: 9000, Period: 'DAY' },
      },
    ]);
    // Teams are data: their keys are made by the admin CLI, not by the stack.
    expect(Object.keys(resources(stacks.synth, 'AWS::ApiGateway::ApiKey'))).toEqual([]);
  });

  it('tags each usage plan with its plan name and the default plan as such, for the admin CLI', () => {
    const tagsOf = (s: Synthesized) =>
      Object.values(resources(s, 'AWS::ApiGateway::UsagePlan')).map(({ Properties: p }) =>
        Object.fromEntries((p.Tags as Array<{ Key: string; Value: string }>).map((t) => [t.Key, t.Value])),
      );
    expect(tagsOf(stacks.synth)).toEqual([
      { [RATE_LIMIT_PLAN_TAG]: 'standard', [DEFAULT_RATE_LIMIT_PLAN_TAG]: 'true' },
      { [RATE_LIMIT_PLAN_TAG]: 'bulk' },
    ]);
    expect(tagsOf(stacks.overridden)).toEqual([
      { [RATE_LIMIT_PLAN_TAG]: 'tiny', [DEFAULT_RATE_LIMIT_PLAN_TAG]: 'true' },
      { [RATE_LIMIT_PLAN_TAG]: 'big' },
    ]);
    // The admin CLI finds the plans on the API its AdminTarget output names.
    const [apiId] = Object.keys(resources(stacks.synth, 'AWS::ApiGateway::RestApi'));
    const target = JSON.stringify(stacks.synth.template.findOutputs('AdminTarget').AdminTarget?.Value);
    expect(target).toContain(`"--rest-api",{"Ref":"${apiId}"}`);
  });

  it('tells every function the plans, so GET /api/v1/limits answers the deployment’s', () => {
    const limitsOf = (s: Synthesized) =>
      new Set(
        Object.values(resources(s, 'AWS::Lambda::Function'))
          .map((fn) => fn.Properties.Environment?.Variables?.RATE_LIMITS)
          .filter(Boolean),
      );
    expect([...limitsOf(stacks.synth)].map((text) => JSON.parse(text))).toEqual([RATE_LIMIT_DEFAULTS]);
    expect([...limitsOf(stacks.overridden)].map((text) => JSON.parse(text))).toEqual([
      { plans: JSON.parse(OVERRIDES.rateLimitPlans), defaultPlan: 'tiny' },
    ]);
  });

  it('stays clean of AwsSolutions findings with the plans', () => {
    expect(reportedViolations(stacks.synth.assembly)).toEqual([]);
    expect(reportedViolations(stacks.overridden.assembly)).toEqual([]);
  });

  it.each([
    [{ rateLimitPlans: '{"standard": {"rate": 5}}' }, /rateLimitPlans.standard.burst/],
    [{ rateLimitPlans: '{"standard": {"rate": 5, "burst": 5, "monthly": 1}}' }, /monthly: unknown/],
    [{ rateLimitPlans: '{"Gold Plan": {"rate": 5, "burst": 5}}' }, /rateLimitPlans.Gold Plan/],
    [{ rateLimitPlans: '{}' }, /rateLimitPlans/],
    [{ defaultRateLimitPlan: 'gold' }, /defaultRateLimitPlan: one of standard, bulk/],
  ])('refuses the context %j, naming the key', (context, message) => {
    expect(() => synthesize({ full: false, context })).toThrow(message);
  });
});
