import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { namedPlans, planMatchString, type RateLimits, sourceRateLimit } from '../../shared/rate-limits.ts';

/** The header every rule counts by and matches: `Bearer tm_<plan>_<team>_<secret>`. */
const AUTHORIZATION = 'authorization';
/**
 * The authorizer takes the scheme in any case (`Bearer`, `bearer`, ...): counted as written, each spelling
 * of one token would have a count of its own. Lower-cased, a token is one count, and a named plan's match
 * string (shared/rate-limits.ts) matches it.
 */
const LOWERCASE: CfnWebACL.TextTransformationProperty[] = [{ priority: 0, type: 'LOWERCASE' }];

export interface TeamRateLimitsProps {
  /** The stage whose requests are counted. */
  stage: Stage;
  limits: RateLimits;
}

/** The per-source rule's name (and metric): requests per client address, before the plans. */
export const SOURCE_RULE = 'per-source';

/**
 * Per-team rate limits as AWS WAF rate-based rules on the API's stage, counted per token: one rule per plan,
 * after one rule per source address that holds a caller whatever tokens it sends (a fresh invented token
 * per request is never counted twice by a plan's rule).
 * A token names its plan in its first characters (`tm_<plan>_`, shared/rate-limits.ts), so a named plan's
 * rule counts the tokens that start with its prefix and the default plan's rule every other token. Nothing
 * here is per team or changes with the teams: a plan holds any number of teams, and the number of plans is
 * WAF's quota of rate-based rules per web ACL (docs/tenant-isolation.md "Rate limits", docs/rate-limits.md).
 *
 * No rule samples requests, nor does the web ACL: a sampled request shows its headers, the token included,
 * to whoever can read WAF in the console or the API. Metrics stay on.
 */
export class TeamRateLimits extends Construct {
  readonly webAcl: CfnWebACL;
  /** The plan of every token that names no other plan. */
  readonly defaultPlan: string;
  /** Every plan's name, the default's included: what the admin CLI may assign. */
  readonly planNames: readonly string[];

  constructor(scope: Construct, id: string, { stage, limits }: TeamRateLimitsProps) {
    super(scope, id);
    this.defaultPlan = limits.defaultPlan;
    this.planNames = Object.keys(limits.plans);
    const { stackName } = Stack.of(this);
    const named = namedPlans(limits);
    const namesPlan = (plan: string): CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch: { singleHeader: { Name: AUTHORIZATION } },
        positionalConstraint: 'STARTS_WITH',
        searchString: planMatchString(plan),
        textTransformations: LOWERCASE,
      },
    });
    const scopeOf = (plan: string): CfnWebACL.StatementProperty | undefined => {
      if (named.includes(plan)) return namesPlan(plan);
      // The default plan: every token that names no named plan (WAF's OR takes two statements or more).
      const [first, ...others] = named.map(namesPlan);
      if (!first) return undefined;
      return {
        notStatement: {
          statement: others.length ? { orStatement: { statements: [first, ...others] } } : first,
        },
      };
    };

    // No custom response: a blocked request gets API Gateway's WAF_FILTERED gateway response (the stack's 429).
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${stackName}-rate-limits`,
      description: 'Per-team rate limits: one rate-based rule per plan, counting each API token',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      // The default action's samples would show every allowed request's headers: off too.
      visibilityConfig: visibility(`${stackName}-rate-limits`),
      rules: [
        perSource(limits),
        ...Object.entries(limits.plans).map(([plan, { limit, windowSeconds }], index) => {
          const scopeDownStatement = scopeOf(plan);
          return {
            name: `plan-${plan}`,
            priority: index + 1,
            action: { block: {} },
            visibilityConfig: visibility(`plan-${plan}`),
            statement: {
              rateBasedStatement: {
                limit,
                evaluationWindowSec: windowSeconds,
                aggregateKeyType: 'CUSTOM_KEYS',
                customKeys: [{ header: { name: AUTHORIZATION, textTransformations: LOWERCASE } }],
                ...(scopeDownStatement && { scopeDownStatement }),
              },
            },
          };
        }),
      ],
    });

    // The stage ARN names the stage by its Ref, so CloudFormation creates the stage before the association
    // (WAF refuses to associate a stage that does not exist yet).
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}

/**
 * Every request of one client address, token or none, counted over the window (WAF's `IP` key: the address
 * the request came from, which a caller cannot choose by a header, unlike `X-Forwarded-For`). First, so a
 * flood it blocks is not counted by the plans; a request it lets through goes on to them. Blocked requests
 * get the WAF_FILTERED gateway response, the plans' 429.
 */
function perSource(limits: RateLimits): CfnWebACL.RuleProperty {
  const { limit, windowSeconds } = sourceRateLimit(limits);
  return {
    name: SOURCE_RULE,
    priority: 0,
    action: { block: {} },
    visibilityConfig: visibility(SOURCE_RULE),
    statement: { rateBasedStatement: { limit, evaluationWindowSec: windowSeconds, aggregateKeyType: 'IP' } },
  };
}

/**
 * CloudWatch metrics per rule (requests counted, blocked), never sampled requests: every rule inspects the
 * Authorization header, and a sample carries it in clear (docs/rate-limits.md, "No token in WAF").
 */
function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false };
}
