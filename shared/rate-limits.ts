/**
 * Per-team rate limits: plans of a steady rate, a burst and an optional daily quota, which API Gateway's
 * usage plans (one per plan, lib/cdk/stack.ts) and the local gateway enforce per team. The defaults are
 * cdk.json's; a deployment that sets others passes them to the functions as `RATE_LIMITS` (shared/config.ts).
 */
export interface RateLimitPlan {
  /** Steady requests per second. */
  rate: number;
  /** Requests allowed at once above the steady rate (the token bucket's size). */
  burst: number;
  /** Requests per UTC day, if the plan has a quota. */
  dailyQuota?: number;
}

export interface RateLimits {
  plans: Readonly<Record<string, RateLimitPlan>>;
  /** The plan of a team the admin CLI has not assigned one (or whose plan no longer exists). */
  defaultPlan: string;
}

export const RATE_LIMIT_DEFAULTS: RateLimits = {
  plans: {
    standard: { rate: 25, burst: 50 },
    bulk: { rate: 50, burst: 100, dailyQuota: 1_000_000 },
  },
  defaultPlan: 'standard',
};

/** What a team's requests are held to: its plan's name and that plan's limits. */
export interface TeamRateLimit extends RateLimitPlan {
  plan: string;
}

/** The plan a team is in: the one recorded for it while the deployment still defines it, else the default. */
export function rateLimitOf(recordedPlan: unknown, limits: RateLimits): TeamRateLimit {
  const plan =
    typeof recordedPlan === 'string' && Object.hasOwn(limits.plans, recordedPlan)
      ? recordedPlan
      : limits.defaultPlan;
  const planLimits = limits.plans[plan];
  if (!planLimits) throw new Error(`no rate limit plan ${plan}`);
  return { plan, ...planLimits };
}

/**
 * The tags that name the rate limit plan of each of the stack's usage plans and mark the default plan's:
 * the admin CLI finds them by these.
 */
export const RATE_LIMIT_PLAN_TAG = 'rate-limit-plan';
export const DEFAULT_RATE_LIMIT_PLAN_TAG = 'rate-limit-plan-default';
