/**
 * Per-team rate limits: the plans cdk.json defines (lib/cdk/settings.ts reads them), which API Gateway's
 * usage plans and the local gateway enforce per team. Here so that the data modules and the functions can
 * speak of plans without reaching into lib.
 */
export interface RateLimitPlan {
  /** Steady requests per second. */
  rate: number;
  /** Requests allowed at once above the steady rate (the token bucket's size). */
  burst: number;
  /** Requests per UTC day, if the plan has a quota. */
  dailyQuota?: number;
}

/** What a team's requests are held to: its plan's name and that plan's limits. */
export interface TeamRateLimit extends RateLimitPlan {
  plan: string;
}
