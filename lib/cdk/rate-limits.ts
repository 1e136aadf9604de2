import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnRegexPatternSet, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { EMPTY_PLAN_PATTERN, namedPlans, type RateLimits } from '../../shared/rate-limits.ts';

/** The header every rule counts by and matches: `Bearer tm_<team>_<secret>`. */
const AUTHORIZATION = 'authorization';
/**
 * The authorizer takes the scheme in any case (`Bearer`, `bearer`, ...): counted as written, each spelling
 * of one token would have a count of its own. Lower-cased, a token is one count, and the plan sets' patterns
 * (shared/rate-limits.ts) match it.
 */
const LOWERCASE: CfnWebACL.TextTransformationProperty[] = [{ priority: 0, type: 'LOWERCASE' }];

export interface TeamRateLimitsProps {
  /** The stage whose requests are counted. */
  stage: Stage;
  limits: RateLimits;
}

/**
 * Per-team rate limits as AWS WAF rate-based rules on the API's stage, counted per token: one rule per plan,
 * and for each plan but the default a regex pattern set of its teams, which the admin CLI rewrites when it
 * assigns a plan. Nothing here is per team, so the number of teams is not bounded by an AWS resource quota
 * (as it was by the 10,000 API keys of usage plans): README "Rate limits", docs/rate-limits.md.
 */
export class TeamRateLimits extends Construct {
  /** Each named plan's set of teams, by plan name (the default plan holds every token none of them match). */
  readonly planSets: ReadonlyMap<string, CfnRegexPatternSet>;
  readonly webAcl: CfnWebACL;
  /** The plan of every team not in a named plan's set. */
  readonly defaultPlan: string;

  constructor(scope: Construct, id: string, { stage, limits }: TeamRateLimitsProps) {
    super(scope, id);
    this.defaultPlan = limits.defaultPlan;
    const { stackName } = Stack.of(this);
    this.planSets = new Map(
      namedPlans(limits).map((plan) => [
        plan,
        // Every property is fixed: any update by CloudFormation would put back the empty list, dropping the
        // teams the admin CLI has put in the plan.
        new CfnRegexPatternSet(this, `PlanSet-${plan}`, {
          name: `${stackName}-plan-${plan}`,
          scope: 'REGIONAL',
          // WAF descriptions allow letters, digits, spaces and + = : # @ / - , . only.
          description:
            `Teams in rate limit plan ${plan} as patterns of their tokens. Created empty by the stack, ` +
            'written by the admin CLI team plan command: a stack update must never touch it.',
          regularExpressionList: [EMPTY_PLAN_PATTERN],
        }),
      ]),
    );
    const inSet = (set: CfnRegexPatternSet): CfnWebACL.StatementProperty => ({
      regexPatternSetReferenceStatement: {
        arn: set.attrArn,
        fieldToMatch: { singleHeader: { Name: AUTHORIZATION } },
        textTransformations: LOWERCASE,
      },
    });
    const namedStatements = [...this.planSets.values()].map(inSet);
    const scopeOf = (plan: string): CfnWebACL.StatementProperty | undefined => {
      const set = this.planSets.get(plan);
      if (set) return inSet(set);
      // The default plan: every token no named plan matches (WAF's OR takes two statements or more).
      const [first, ...others] = namedStatements;
      if (!first) return undefined;
      const named = others.length ? { orStatement: { statements: namedStatements } } : first;
      return { notStatement: { statement: named } };
    };

    // No custom response: a blocked request gets API Gateway's WAF_FILTERED gateway response (the stack's 429).
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${stackName}-rate-limits`,
      description: 'Per-team rate limits: one rate-based rule per plan, counting each API token',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`${stackName}-rate-limits`),
      rules: Object.entries(limits.plans).map(([plan, { limit, windowSeconds }], priority) => {
        const scopeDownStatement = scopeOf(plan);
        return {
          name: `plan-${plan}`,
          priority,
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
    });

    // The stage ARN names the stage by its Ref, so CloudFormation creates the stage before the association
    // (WAF refuses to associate a stage that does not exist yet).
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}

/** CloudWatch metrics and sampled requests: what a blocked team's support request is checked against. */
function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true };
}
