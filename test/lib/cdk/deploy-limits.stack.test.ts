import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionId } from '../../../lib/cdk/route-areas.ts';
import {
  DEFAULT_SETTINGS,
  environmentBytes,
  LAMBDA_ENVIRONMENT_BYTES,
  rateLimitsEnvironment,
  readSettings,
} from '../../../lib/cdk/settings.ts';
import type { CfnTemplate } from '../../../lib/cdk/synth-offline.ts';
import { TeamMessagingStack } from '../../../lib/cdk/team-messaging-stack.ts';
import { MAX_RATE_LIMIT_PLANS } from '../../../shared/rate-limits.ts';
import { routes } from '../../../shared/routes.ts';
import { LARGEST_SETTINGS, largestPlans } from '../../support/largest-settings.ts';
import {
  environmentSizes,
  IAM_ROLE_POLICY_CHARACTERS,
  type Resources,
  rolePolicySizes,
} from '../../support/rendered-sizes.ts';
import {
  CDK_JSON_CONTEXT,
  CLI_CONTEXT,
  nestedTemplatePath,
  type Synthesized,
  synthesize,
  withRouteAreas,
} from '../../support/synth.ts';
import { WCU, webAclCost } from '../../support/waf-capacity.ts';

/**
 * AWS limits the CloudFormation validator does not check, each of which fails a deploy on the way: at the
 * largest settings (test/support/largest-settings.ts), production and dev, with what the CLI adds to the
 * template (CLI_CONTEXT).
 */
const MAX_RESOURCES = 450; // CloudFormation takes 500 a stack
const MAX_TEMPLATE_BYTES = 800 * 1024; // CloudFormation takes 1 MB from S3 (where the CLI uploads it)
const MAX_PARAMETERS = 200; // CloudFormation's, a stack: the nested stack's are what it watches
const MAX_OUTPUTS = 60; // CloudFormation's, a stack
/**
 * AWS WAF's fixed quotas per web ACL (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html):
 * 10 rate-based rules, 50 reference statements, 5,000 capacity units, of which the web ACL's price includes
 * 1,500 (more are charged per request: https://aws.amazon.com/waf/pricing/). The web ACL is held to 1,500.
 */
const WAF_RATE_BASED_RULES = 10;
const WAF_REFERENCE_STATEMENTS = 50;
const WAF_WCU_INCLUDED = 1_500;

const largest: Synthesized[] = [];
beforeAll(() => {
  for (const dev of [false, true])
    largest.push(synthesize({ dev, context: { ...CLI_CONTEXT, ...LARGEST_SETTINGS } }));
});
afterAll(() => {
  for (const synth of largest) rmSync(synth.outdir, { recursive: true, force: true });
});
/** The entries over the limit: what a failing check names. */
const over = (sizes: Record<string, number>, limit: number) =>
  Object.entries(sizes).filter(([, size]) => size > limit);

describe('CDK stack: deploy limits at the largest settings', () => {
  it("keeps every function's environment within Lambda's 4 KB", () => {
    for (const synth of largest) {
      const sizes = environmentSizes(synth.template);
      expect(Object.keys(sizes).length).toBeGreaterThan(routes.length);
      expect(over(sizes, LAMBDA_ENVIRONMENT_BYTES), synth.stack.stackName).toEqual([]);
    }
  });

  it("keeps every role's inline policies within IAM's 10,240 characters", () => {
    for (const synth of largest) {
      const sizes = rolePolicySizes(synth.template);
      expect(Object.keys(sizes).length).toBeGreaterThan(routes.length);
      expect(over(sizes, IAM_ROLE_POLICY_CHARACTERS), synth.stack.stackName).toEqual([]);
    }
  });

  it('stays under 450 resources and 800 KB of template: the stack, and the nested stack of its monitoring', () => {
    for (const synth of largest) {
      const nested = synth.stack.monitoring.nestedStack;
      const templates: Array<[string, string]> = [
        [synth.stack.stackName, synth.assembly.getStackArtifact(synth.stack.artifactId).templateFullPath],
        [`${synth.stack.stackName} ${nested.node.path}`, nestedTemplatePath(synth, nested)],
      ];
      for (const [name, path] of templates) {
        const template = JSON.parse(readFileSync(path, 'utf8')) as CfnTemplate;
        const resources = Object.keys(template.Resources ?? {});
        expect(resources.length, name).toBeLessThanOrEqual(MAX_RESOURCES);
        // With the CLI's metadata (CLI_CONTEXT), without which the template is 8% smaller.
        expect(resources, name).toContain('CDKMetadata');
        expect(statSync(path).size, name).toBeLessThanOrEqual(MAX_TEMPLATE_BYTES);
        expect(Object.keys(template.Parameters ?? {}).length, name).toBeLessThanOrEqual(MAX_PARAMETERS);
        expect(Object.keys(template.Outputs ?? {}).length, name).toBeLessThanOrEqual(MAX_OUTPUTS);
      }
    }
  });
});

describe("CDK stack: the web ACL within AWS WAF's fixed quotas at the most plans", () => {
  const webAcls = (synth: Synthesized) =>
    Object.values(synth.template.toJSON().Resources as Resources).filter(
      (r) => r.Type === 'AWS::WAFv2::WebACL',
    );

  it('takes 9 plans and the per-source rule in 10 rate-based rules, no reference statement, 572 WCU of the 1,500 included', () => {
    for (const synth of largest) {
      const [acl, ...others] = webAcls(synth);
      expect(others).toEqual([]);
      const cost = webAclCost(acl?.Properties ?? {});
      expect(cost.rateBasedRules).toBe(MAX_RATE_LIMIT_PLANS + 1);
      expect(cost.rateBasedRules).toBe(WAF_RATE_BASED_RULES);
      expect(cost.referenceStatements).toBeLessThanOrEqual(WAF_REFERENCE_STATEMENTS);
      // Plans live in the tokens: nothing is referred to (the regex pattern sets of before took two each).
      expect(cost.referenceStatements).toBe(0);
      // Each plan's rule: a rate-based statement (2) keyed on the lower-cased header (30 + 10). Each of the 8
      // named plans: a starts-with match of the lower-cased header (2 + 10) in its own rule and again under
      // the default plan's NOT(OR(...)). The per-source rule: a rate-based statement keyed on the address
      // (2, no custom key). docs/rate-limits.md has the same sum.
      const rule = WCU.rateBasedBase + WCU.rateBasedCustomKey + WCU.textTransformation;
      const prefixMatch = WCU.byteMatch.STARTS_WITH + WCU.textTransformation;
      const named = MAX_RATE_LIMIT_PLANS - 1;
      expect(cost.wcu).toBe(WCU.rateBasedBase + MAX_RATE_LIMIT_PLANS * rule + 2 * named * prefixMatch);
      expect(cost.wcu).toBe(572);
      expect(cost.wcu).toBeLessThanOrEqual(WAF_WCU_INCLUDED);
    }
  });
});

describe('CDK stack: environment size', () => {
  it("leaves RATE_LIMITS a small share of Lambda's 4 KB at the most plans the settings take", () => {
    const settings = readSettings(new App({ context: { ...CDK_JSON_CONTEXT, ...LARGEST_SETTINGS } }).node);
    expect(Object.keys(settings.rateLimitPlans)).toHaveLength(MAX_RATE_LIMIT_PLANS);
    const share = environmentBytes(rateLimitsEnvironment(settings));
    // 9 plans of 32-character names and 10-digit limits, and the per-source limit: under a quarter of the 4 KB.
    expect(share).toBeGreaterThan(800);
    expect(share).toBeLessThanOrEqual(LAMBDA_ENVIRONMENT_BYTES / 4);
  });

  it('the check reports every function that carries the plans, in a stack built with too many', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tm-cdk-'));
    try {
      const context = { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] };
      const app = new App({ outdir, context, builtinCloudFormationValidation: false });
      const plans = largestPlans(80);
      const settings = {
        ...DEFAULT_SETTINGS,
        rateLimitPlans: JSON.parse(plans.rateLimitPlans),
        defaultRateLimitPlan: plans.defaultRateLimitPlan,
      };
      const stack = new TeamMessagingStack(app, 'Padded', { settings });
      // The route functions are in the areas' nested stacks, read into the stack's template.
      const template = withRouteAreas(stack, Template.fromStack(stack).toJSON(), (area) =>
        Template.fromStack(area).toJSON(),
      );
      const sizes = environmentSizes(Template.fromJSON(template));
      const reported = over(sizes, LAMBDA_ENVIRONMENT_BYTES).map(([id]) => id);
      // The routes behind the authorizer carry RATE_LIMITS; the public routes, the authorizer, the
      // change-event consumer, the webhook deliverer and sweeper and CDK's own (LogRetention) do not.
      const carrying = routes.filter((route) => !route.public).map((r) => functionId(r.method, r.path));
      expect(reported.map((id) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(carrying.sort());
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('the settings refuse a 10th plan, naming the WAF quota and its source; 9 fit every function', () => {
    const context = { ...LARGEST_SETTINGS, ...largestPlans(MAX_RATE_LIMIT_PLANS + 1) };
    expect(() => synthesize({ full: false, context })).toThrow(
      "context rateLimitPlans: at most 9 plans, 10 given: each plan, the default's included, is a " +
        "rate-based rule of the API's web ACL beside the per-source rule, and AWS WAF allows 10 rate-based " +
        'rules per web ACL, a fixed quota (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html)',
    );
    // The largest settings hold the most plans: every function's environment fits (checked above too).
    for (const synth of largest) {
      const plans = JSON.parse(synth.stack.node.tryGetContext('rateLimitPlans'));
      expect(Object.keys(plans)).toHaveLength(MAX_RATE_LIMIT_PLANS);
      expect(over(environmentSizes(synth.template), LAMBDA_ENVIRONMENT_BYTES)).toEqual([]);
    }
  });

  it("the settings refuse variables too large for Lambda's 4 KB, naming the key that makes them so", () => {
    // Plans can no longer fill the environment; browser origins, a list of any length, can.
    const origins = Array.from({ length: 60 }, (_, i) => `https://app-${i}.customer-platform.example.com`);
    const context = { ...CDK_JSON_CONTEXT, ...LARGEST_SETTINGS, corsOrigins: origins.join(',') };
    expect(() => readSettings(new App({ context }).node)).toThrow(
      /context corsOrigins: too large for Lambda's 4 KB of environment variables/,
    );
  });
});
