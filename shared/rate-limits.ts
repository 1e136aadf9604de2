/**
 * Per-team rate limits: plans of at most `limit` requests per `windowSeconds`, counted per API token the way
 * an AWS WAF rate-based rule counts them (lib/cdk/rate-limits.ts deploys one rule per plan; the local gateway
 * counts the same way, lib/local/rate-limiter.ts). Why WAF and not usage plans: docs/rate-limits.md. The
 * defaults are cdk.json's; a deployment that sets others passes them to the routes behind the authorizer as
 * `RATE_LIMITS` (shared/config.ts).
 */
export interface RateLimitPlan {
  /** Requests a token may make in any `windowSeconds` (AWS WAF: at least 10). */
  limit: number;
  /** The window the requests are counted over: one of WAF's evaluation windows. */
  windowSeconds: RateLimitWindow;
}

/** AWS WAF's evaluation windows for rate-based rules, in seconds. */
export const RATE_LIMIT_WINDOWS = [60, 120, 300, 600] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];
/** AWS WAF's lowest and highest rate limits. */
export const MIN_RATE_LIMIT = 10;
export const MAX_RATE_LIMIT = 2_000_000_000;
/** AWS WAF's rate-based rules per web ACL: 10, a fixed quota (WAF_QUOTAS_URL). */
export const WAF_RATE_BASED_RULES = 10;
/**
 * The most plans a deployment may define: one rate-based rule per plan (the default's included) in the one
 * web ACL, beside the per-source rule, within WAF's fixed quota of rate-based rules. The settings refuse more.
 */
export const MAX_RATE_LIMIT_PLANS = WAF_RATE_BASED_RULES - 1;
export const WAF_QUOTAS_URL = 'https://docs.aws.amazon.com/waf/latest/developerguide/limits.html';

/**
 * A plan's name: it names a WAF rule, starts the tokens of the plan (`planTokenPrefix`) and is a CLI
 * argument. No `_`: a plan's prefix ends at the first one, so no plan's prefix starts another's (`bulk`'s
 * `tm_bulk_` is not the start of `tm_bulk-2_`). Unanchored, so that the OpenAPI document can say the
 * RateLimit headers that carry it.
 */
export const PLAN_NAME_LENGTH = 32;
export const PLAN_NAME_FORM = `[a-z][a-z0-9-]{0,${PLAN_NAME_LENGTH - 1}}`;
export const PLAN_NAME = new RegExp(`^${PLAN_NAME_FORM}$`);

export interface RateLimits {
  plans: Readonly<Record<string, RateLimitPlan>>;
  /** The plan of every team that has not been assigned another (or whose plan no longer exists). */
  defaultPlan: string;
  /**
   * Requests one source address may make, whatever tokens it sends (SOURCE_RATE_LIMIT_DEFAULT unless the
   * deployment sets its own): counted before the plans and before the authorizer runs, so that a caller
   * inventing a fresh token for every request, which no plan ever counts twice, is held too.
   */
  perSource?: RateLimitPlan;
}

/**
 * 6,000 requests a minute from one address (100 a second on average): twice the `bulk` plan's token, so one
 * integration's server is not held by it, and a hundredth of the stage's throttle, so that one address
 * inventing tokens costs the authorizer at most 100 runs a second (docs/tenant-isolation.md, "Rate limits", "Per source").
 */
export const SOURCE_RATE_LIMIT_DEFAULT: RateLimitPlan = { limit: 6000, windowSeconds: 60 };

/** What one source address is held to under these limits. */
export const sourceRateLimit = (limits: RateLimits): RateLimitPlan =>
  limits.perSource ?? SOURCE_RATE_LIMIT_DEFAULT;

export const RATE_LIMIT_DEFAULTS: RateLimits = {
  plans: {
    standard: { limit: 1500, windowSeconds: 60 },
    bulk: { limit: 3000, windowSeconds: 60 },
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

/** The plans a token must name to be in: every plan but the default, which holds every other token. */
export const namedPlans = (limits: RateLimits): string[] =>
  Object.keys(limits.plans).filter((plan) => plan !== limits.defaultPlan);

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the policy a caller is held to, and,
 * where the count is known (the local gateway), what is left of it and the seconds until it grows again.
 */
export const rateLimitPolicyHeader = ({ plan, limit, windowSeconds }: TeamRateLimit): string =>
  `"${plan}";q=${limit};w=${windowSeconds}`;
export const rateLimitHeader = (plan: string, remaining: number, resetSeconds: number): string =>
  `"${plan}";r=${remaining};t=${resetSeconds}`;

/**
 * Where a token names its rate limit plan: a token is `tm_<plan>_<team>_<secret>` (shared/data/teams.ts),
 * so that WAF tells a plan's tokens by their first characters, for any number of teams and with nothing
 * per team in AWS. Tokens made before plans were named in them (`tm_<team>_<secret>`, `tm_<secret>`) are in
 * the default plan.
 */
export const planTokenPrefix = (plan: string): string => `tm_${plan}_`;

/**
 * What a named plan's WAF rule matches at the start of the lower-cased Authorization header (lib/cdk/rate-
 * limits.ts): the scheme, one space and the plan's prefix. Plan names are lower case already.
 */
export const planMatchString = (plan: string): string => `bearer ${planTokenPrefix(plan)}`;

/**
 * The plan the web ACL counts a request in, from its Authorization header alone, as WAF decides it before any
 * code runs: the named plan whose match string starts the lower-cased header, else the default plan (every
 * older token form, a token naming a plan the deployment does not define, any other header). The local
 * gateway counts by it (lib/local/gateway.ts).
 */
export function planOfAuthorization(authorization: string, limits: RateLimits): string {
  const header = authorization.toLowerCase();
  return namedPlans(limits).find((plan) => header.startsWith(planMatchString(plan))) ?? limits.defaultPlan;
}
