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

/**
 * A plan's name: it names WAF rules and regex pattern sets and is a CLI argument. Unanchored, so that the
 * OpenAPI document can say the RateLimit headers that carry it.
 */
export const PLAN_NAME_LENGTH = 32;
export const PLAN_NAME_FORM = `[a-z][a-z0-9-]{0,${PLAN_NAME_LENGTH - 1}}`;
export const PLAN_NAME = new RegExp(`^${PLAN_NAME_FORM}$`);

export interface RateLimits {
  plans: Readonly<Record<string, RateLimitPlan>>;
  /** The plan of every team that has not been assigned another (or whose plan no longer exists). */
  defaultPlan: string;
}

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

/** The plans a team must be assigned to be in: every plan but the default, which holds everyone else. */
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
 * How AWS WAF tells a named plan's teams from the rest without a per-request lookup: their tokens name their
 * team (`tm_<team>_<secret>`, shared/data/teams.ts), and each named plan has a regex pattern set of its teams
 * matched against the lower-cased Authorization header. WAF's fixed quotas bound a set: 10 patterns of at most
 * 200 characters (https://docs.aws.amazon.com/waf/latest/developerguide/limits.html).
 */
export const PLAN_SET_QUOTA = { patterns: 10, patternCharacters: 200 } as const;
const PATTERN_HEAD = '^bearer tm_(?:';
const PATTERN_TAIL = ')_';
/** What a plan's set holds while no team is in it: team 0 never exists (ids start at 1). */
export const EMPTY_PLAN_PATTERN = `${PATTERN_HEAD}0${PATTERN_TAIL}`;

/** The patterns that match the tokens of these teams, or undefined if they do not fit in one set. */
export function planSetPatterns(teamIds: Iterable<number>): string[] | undefined {
  const ids = [...new Set(teamIds)].sort((a, b) => a - b).map(String);
  if (!ids.length) return [EMPTY_PLAN_PATTERN];
  const room = PLAN_SET_QUOTA.patternCharacters - PATTERN_HEAD.length - PATTERN_TAIL.length;
  const patterns: string[] = [];
  let group: string[] = [];
  for (const id of ids) {
    if (group.length && [...group, id].join('|').length > room) {
      patterns.push(`${PATTERN_HEAD}${group.join('|')}${PATTERN_TAIL}`);
      group = [];
    }
    group.push(id);
  }
  patterns.push(`${PATTERN_HEAD}${group.join('|')}${PATTERN_TAIL}`);
  return patterns.length <= PLAN_SET_QUOTA.patterns ? patterns : undefined;
}

/** The teams a plan's patterns match (what `planSetPatterns` wrote). */
export function planSetTeams(patterns: Iterable<string>): Set<number> {
  const teams = new Set<number>();
  for (const pattern of patterns) {
    if (!pattern.startsWith(PATTERN_HEAD) || !pattern.endsWith(PATTERN_TAIL)) continue;
    for (const id of pattern.slice(PATTERN_HEAD.length, -PATTERN_TAIL.length).split('|')) {
      if (/^[1-9][0-9]*$/.test(id)) teams.add(Number(id));
    }
  }
  return teams;
}

/**
 * Where a token names its rate limit plan: a token is `tm_<plan>_<team>_<secret>` (shared/data/teams.ts),
 * so that WAF tells a plan's tokens by their first characters, for any number of teams and with nothing
 * per team in AWS. Tokens made before plans were named in them (`tm_<team>_<secret>`, `tm_<secret>`) are in
 * the default plan.
 */
export const planTokenPrefix = (plan: string): string => `tm_${plan}_`;
