import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_RULE } from '../../../lib/cdk/rate-limits.ts';
import {
  PLAN_NAME_FORM,
  planOfAuthorization,
  planTokenPrefix,
  RATE_LIMIT_DEFAULTS,
  type RateLimits,
  SOURCE_RATE_LIMIT_DEFAULT,
} from '../../../shared/rate-limits.ts';
import { routes } from '../../../shared/routes.ts';
import { AUTHORIZATION_FORM } from '../../../shared/token-form.ts';
import {
  defaultAndOverridden,
  functionOfRoute,
  logicalId,
  reportedViolations,
  type Synthesized,
  synthesize,
} from '../../support/synth.ts';

/**
 * Per-team rate limits in the stack: AWS WAF rate-based rules on the stage, one per plan, counting each token,
 * a named plan's rule scoped to the tokens that name it in their first characters. The production stack with
 * cdk.json's defaults (one named plan), the dev stack with `-c` overrides (strings, as the CLI passes them;
 * three named plans, `bulk` and `bulk-2` among them) and a stack with the default plan only, synthesized once
 * each.
 */
const OVERRIDES = {
  sourceRateLimit: '{"limit": 300, "windowSeconds": 300}',
  rateLimitPlans:
    '{"tiny": {"limit": 10, "windowSeconds": 60}, "bulk": {"limit": 900, "windowSeconds": 300}, ' +
    '"bulk-2": {"limit": 6000, "windowSeconds": 120}, "big": {"limit": 50, "windowSeconds": 600}}',
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

/** What a rule matches a named plan's tokens with: the start of the lower-cased Authorization header. */
const namesPlan = (plan: string) => ({
  ByteMatchStatement: {
    FieldToMatch: { SingleHeader: { Name: 'authorization' } },
    PositionalConstraint: 'STARTS_WITH',
    SearchString: `bearer ${planTokenPrefix(plan)}`,
    TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
  },
});

// biome-ignore lint/suspicious/noExplicitAny: a synthesized statement, read loosely and checked here.
type Statement = Record<string, any>;
/**
 * Whether a synthesized scope-down statement matches a request with this Authorization header, as WAF
 * evaluates it: the statement types the web ACL uses, any other failing the test.
 */
function matches(statement: Statement | undefined, authorization: string): boolean {
  if (!statement) return true;
  const [[type, body]] = Object.entries(statement) as [[string, Statement]];
  switch (type) {
    case 'ByteMatchStatement': {
      expect(body.FieldToMatch).toEqual({ SingleHeader: { Name: 'authorization' } });
      expect(body.TextTransformations).toEqual([{ Priority: 0, Type: 'LOWERCASE' }]);
      expect(body.PositionalConstraint).toBe('STARTS_WITH');
      return authorization.toLowerCase().startsWith(body.SearchString);
    }
    case 'NotStatement':
      return !matches(body.Statement, authorization);
    case 'OrStatement':
      expect(body.Statements.length).toBeGreaterThanOrEqual(2);
      return body.Statements.some((nested: Statement) => matches(nested, authorization));
    default:
      throw new Error(`unexpected ${type}`);
  }
}

/** The web ACL's rules, the per-source rule's included, as name, priority, limit, window and scope-down. */
function allRulesOf(s: Synthesized) {
  const [, acl] = only(s, 'AWS::WAFv2::WebACL');
  return (acl.Properties.Rules as Array<Resource['Properties']>).map((rule) => {
    expect(rule.Action, rule.Name).toEqual({ Block: {} });
    // Metrics, never samples: a sampled request shows its Authorization header, the token in clear.
    expect(rule.VisibilityConfig, rule.Name).toEqual({
      CloudWatchMetricsEnabled: true,
      MetricName: rule.Name,
      SampledRequestsEnabled: false,
    });
    const { Limit, EvaluationWindowSec, AggregateKeyType, CustomKeys, ScopeDownStatement, ...rest } =
      rule.Statement.RateBasedStatement;
    expect(rest, rule.Name).toEqual({});
    if (rule.Name === SOURCE_RULE) {
      // Counted per client address, every request: the one key a caller cannot choose by what it sends.
      expect([AggregateKeyType, CustomKeys, ScopeDownStatement], rule.Name).toEqual([
        'IP',
        undefined,
        undefined,
      ]);
    } else {
      // Counted per token: the Authorization header, its scheme's case set aside.
      expect(AggregateKeyType, rule.Name).toBe('CUSTOM_KEYS');
      expect(CustomKeys, rule.Name).toEqual([
        { Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }] } },
      ]);
    }
    return {
      name: rule.Name,
      priority: rule.Priority,
      limit: Limit,
      window: EvaluationWindowSec,
      scope: ScopeDownStatement,
    };
  });
}

/** The plans' rules alone. */
const rulesOf = (s: Synthesized) => allRulesOf(s).filter((rule) => rule.name !== SOURCE_RULE);

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

  it('makes nothing per plan or per team but the rules: no regex pattern set, no IP set, no rule group', () => {
    for (const s of all()) {
      for (const type of ['RegexPatternSet', 'IPSet', 'RuleGroup', 'LoggingConfiguration'])
        expect(Object.keys(resources(s, `AWS::WAFv2::${type}`)), type).toEqual([]);
      const wafTypes = Object.values(s.template.toJSON().Resources as Record<string, Resource>)
        .map((r) => r.Type)
        .filter((type) => type.startsWith('AWS::WAFv2::'));
      expect(wafTypes.sort()).toEqual(['AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation']);
    }
  });

  it('puts a regional web ACL on the stage that allows what no rule blocks, with metrics and no samples', () => {
    for (const s of all()) {
      const [aclId, acl] = only(s, 'AWS::WAFv2::WebACL');
      expect(acl.Properties).toMatchObject({
        Name: `${stackName(s)}-rate-limits`,
        Scope: 'REGIONAL',
        DefaultAction: { Allow: {} },
        // The default action's samples would show every allowed request's token.
        VisibilityConfig: { CloudWatchMetricsEnabled: true, SampledRequestsEnabled: false },
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

  it("blocks each plan's tokens over its limit: a named plan's by its prefix, the default's by none of them", () => {
    expect(rulesOf(stacks.synth)).toEqual([
      {
        name: 'plan-standard',
        priority: 1,
        limit: 1500,
        window: 60,
        scope: { NotStatement: { Statement: namesPlan('bulk') } },
      },
      { name: 'plan-bulk', priority: 2, limit: 3000, window: 60, scope: namesPlan('bulk') },
    ]);
    expect(rulesOf(stacks.overridden)).toEqual([
      {
        name: 'plan-tiny',
        priority: 1,
        limit: 10,
        window: 60,
        scope: {
          NotStatement: {
            Statement: {
              OrStatement: { Statements: [namesPlan('bulk'), namesPlan('bulk-2'), namesPlan('big')] },
            },
          },
        },
      },
      { name: 'plan-bulk', priority: 2, limit: 900, window: 300, scope: namesPlan('bulk') },
      { name: 'plan-bulk-2', priority: 3, limit: 6000, window: 120, scope: namesPlan('bulk-2') },
      { name: 'plan-big', priority: 4, limit: 50, window: 600, scope: namesPlan('big') },
    ]);
    // With the default plan alone, its rule counts every token.
    expect(rulesOf(onePlan)).toEqual([
      { name: 'plan-only', priority: 1, limit: 50, window: 600, scope: undefined },
    ]);
    for (const s of all()) for (const rule of allRulesOf(s)) expect(rule.name).toMatch(WAF_NAME);
  });

  it('counts every token under exactly one rule, the plan its first characters name, as the gateway does', () => {
    const limits: RateLimits = { plans: JSON.parse(OVERRIDES.rateLimitPlans), defaultPlan: 'tiny' };
    const secret = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG';
    const cases: Array<[string, string]> = [
      [`Bearer tm_bulk_42_${secret}`, 'bulk'],
      // `bulk` is a prefix of `bulk-2`'s name, not of its tokens': the prefix ends with `_`.
      [`Bearer tm_bulk-2_42_${secret}`, 'bulk-2'],
      [`Bearer tm_big_42_${secret}`, 'big'],
      // WAF lower-cases the header first: a spelling the authorizer's validation expression refuses (401)
      // is counted under the plan it names all the same, before that refusal.
      [`BEARER TM_BULK-2_42_${secret}`, 'bulk-2'],
      // The default plan's own name, and plans the deployment does not define, count in the default.
      [`Bearer tm_tiny_42_${secret}`, 'tiny'],
      [`Bearer tm_gold_42_${secret}`, 'tiny'],
      [`Bearer tm_bulk-3_42_${secret}`, 'tiny'],
      // Tokens made before plans were named in them: team first, or a secret alone.
      [`Bearer tm_42_${secret}`, 'tiny'],
      [`Bearer tm_${secret}`, 'tiny'],
      // A prefix elsewhere than at the start names nothing.
      [`Bearer xtm_bulk_42_${secret}`, 'tiny'],
      [`Basic tm_bulk_42_${secret}`, 'tiny'],
    ];
    const rules = rulesOf(stacks.overridden);
    for (const [authorization, plan] of cases) {
      const counting = rules.filter((rule) => matches(rule.scope, authorization)).map((rule) => rule.name);
      expect(counting, authorization).toEqual([`plan-${plan}`]);
      // The local gateway's rule (lib/local/gateway.ts) decides the same.
      expect(planOfAuthorization(authorization, limits), authorization).toBe(plan);
    }
  });

  it('samples nothing that inspects Authorization, and logs nothing of WAF (a log would need it redacted)', () => {
    for (const s of all()) {
      // Every visibility configuration anywhere in the template: the web ACL's and each rule's.
      const configs: Statement[] = [];
      JSON.stringify(s.template.toJSON(), (key, value) => {
        if (key === 'VisibilityConfig') configs.push(value);
        return value;
      });
      expect(configs.length).toBe(allRulesOf(s).length + 1);
      for (const config of configs) expect(config.SampledRequestsEnabled).toBe(false);
      // No WAF logging: a logging configuration added later must list the header in RedactedFields.
      const logging = Object.values(resources(s, 'AWS::WAFv2::LoggingConfiguration'));
      const redacting = logging.filter((config) =>
        (config.Properties.RedactedFields ?? []).some(
          (field: Statement) => field.SingleHeader?.Name?.toLowerCase() === 'authorization',
        ),
      );
      expect(logging).toEqual(redacting);
      expect(logging).toEqual([]);
    }
  });

  it("keeps tokens out of API Gateway's logs: errors only without bodies, no header in the access log", () => {
    for (const s of all()) {
      const [, stage] = only(s, 'AWS::ApiGateway::Stage');
      for (const settings of stage.Properties.MethodSettings) {
        expect(settings.LoggingLevel).toBe('ERROR');
        expect(settings.DataTraceEnabled).toBe(false);
      }
      const format = stage.Properties.AccessLogSetting.Format as string;
      // Context variables only ($context.identity.sourceIp, $context.authorizer.teamId, ...): no request
      // header, no API key, no authorizer token.
      const variables = format.match(/\$[a-zA-Z.]+/g) ?? [];
      expect(variables.length).toBeGreaterThan(10);
      for (const variable of variables) {
        expect(variable).toMatch(/^\$context\./);
        expect(variable.toLowerCase()).not.toMatch(/header|authorization|apikey|token/);
      }
      expect(format).toContain('$context.authorizer.teamId');
    }
  });

  it('answers a blocked request 429 with the longest plan window as Retry-After and the request id', () => {
    const rateLimited = (s: Synthesized) =>
      Object.values(resources(s, 'AWS::ApiGateway::GatewayResponse')).find(
        (r) => r.Properties.ResponseType === 'WAF_FILTERED',
      )?.Properties;
    for (const [s, retryAfter] of [
      [stacks.synth, '60'],
      [stacks.overridden, '600'],
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

  it('points the admin CLI at the API (for migrate) and the plans, and outputs the web ACL', () => {
    const outputs = (s: Synthesized) => s.template.findOutputs('*');
    const target = (s: Synthesized) => outputs(s).AdminTarget?.Value['Fn::Join'];
    for (const s of all()) {
      const [apiId] = only(s, 'AWS::ApiGateway::RestApi');
      const [aclId] = only(s, 'AWS::WAFv2::WebACL');
      const [separator, flags] = target(s);
      expect(separator).toBe(' ');
      expect(flags.slice(6, 8)).toEqual(['--rest-api', { Ref: apiId }]);
      expect(outputs(s).WebAclArn?.Value).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
      // No WAF resource for the CLI to write: a plan change is new tokens.
      expect(JSON.stringify(flags)).not.toContain('--plan-sets');
    }
    // CloudFormation's join is given adjacent literal flags as one string.
    expect(target(stacks.synth)[1].slice(8)).toEqual(['--default-plan standard --plans standard,bulk']);
    expect(target(stacks.overridden)[1].slice(8)).toEqual([
      '--default-plan tiny --plans tiny,bulk,bulk-2,big',
    ]);
    expect(target(onePlan)[1].slice(8)).toEqual(['--default-plan only --plans only']);
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
        .map((route) => functionOfRoute(s.stack, route).node.defaultChild);
      expect(carrying.map(([id]) => id).sort()).toEqual(
        behindAuthorizer.map((fn) => logicalId(s.stack, fn)).sort(),
      );
    }
    expect([...limitsOf(stacks.synth)].map((text) => JSON.parse(text))).toEqual([
      { ...RATE_LIMIT_DEFAULTS, perSource: SOURCE_RATE_LIMIT_DEFAULT },
    ]);
    expect([...limitsOf(stacks.overridden)].map((text) => JSON.parse(text))).toEqual([
      {
        plans: JSON.parse(OVERRIDES.rateLimitPlans),
        defaultPlan: 'tiny',
        perSource: JSON.parse(OVERRIDES.sourceRateLimit),
      },
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
    // AWS WAF's fixed 10 rate-based rules per web ACL: one per plan, and the per-source rule.
    [
      {
        rateLimitPlans: JSON.stringify(
          Object.fromEntries(
            Array.from({ length: 10 }, (_, i) => [`p${i}`, { limit: 100, windowSeconds: 60 }]),
          ),
        ),
        defaultRateLimitPlan: 'p0',
      },
      /rateLimitPlans: at most 9 plans, 10 given: .*beside the per-source rule, and AWS WAF allows 10 rate-based rules per web ACL, a fixed quota \(https:\/\/docs.aws.amazon.com\/waf\/latest\/developerguide\/limits.html\)/,
    ],
    [
      { sourceRateLimit: '{"limit": 5, "windowSeconds": 60}' },
      /sourceRateLimit.limit: a whole number, 10 or more/,
    ],
    [{ sourceRateLimit: '{"limit": 100, "windowSeconds": 30}' }, /sourceRateLimit.windowSeconds: one of 60/],
    [{ sourceRateLimit: '{"limit": 100}' }, /sourceRateLimit.windowSeconds: one of/],
    [{ defaultRateLimitPlan: 'gold' }, /defaultRateLimitPlan: one of standard, bulk/],
  ])('refuses the context %j, naming the key', (context, message) => {
    expect(() => synthesize({ full: false, context })).toThrow(message);
  });
});

describe('CDK stack: the front door, before the authorizer runs', () => {
  it('counts every request per source address first, at the settings’ limit, before any plan', () => {
    const source = { name: SOURCE_RULE, priority: 0, scope: undefined };
    expect(allRulesOf(stacks.synth)[0]).toEqual({ ...source, limit: 6000, window: 60 });
    expect(allRulesOf(stacks.overridden)[0]).toEqual({ ...source, limit: 300, window: 300 });
    expect(allRulesOf(onePlan)[0]).toEqual({ ...source, limit: 6000, window: 60 });
    // WAF runs a web ACL's rules by priority and stops at the first that blocks.
    for (const s of all()) {
      const priorities = allRulesOf(s).map((rule) => rule.priority);
      expect(priorities).toEqual(priorities.map((_, i) => i));
    }
  });

  it('refuses a header that cannot hold a token with its validation expression: no authorizer run', () => {
    for (const s of all()) {
      const [, authorizer] = only(s, 'AWS::ApiGateway::Authorizer');
      expect(authorizer.Properties).toMatchObject({
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        IdentityValidationExpression: AUTHORIZATION_FORM,
      });
    }
    // Every form of token the API has made passes in one spelling, and no other spelling does.
    const expression = new RegExp(AUTHORIZATION_FORM);
    const secret = fc.stringMatching(/^[0-9A-Za-z]{40,60}$/);
    const plan = fc.stringMatching(new RegExp(`^${PLAN_NAME_FORM}$`));
    const team = fc.integer({ min: 1, max: 999_999_999_999_999 });
    const token = fc.oneof(
      fc.tuple(plan, team, secret).map(([p, t, x]) => `tm_${p}_${t}_${x}`),
      fc.tuple(team, secret).map(([t, x]) => `tm_${t}_${x}`),
      secret.map((x) => `tm_${x}`),
    );
    fc.assert(
      fc.property(token, fc.constantFrom('bearer', 'BEARER', 'Bearer ', ' Bearer', 'Token'), (t, other) => {
        expect(expression.test(`Bearer ${t}`)).toBe(true);
        expect(expression.test(`${other} ${t}`)).toBe(false);
        expect(expression.test(`Bearer ${t}\n`)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
