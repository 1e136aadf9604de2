import type { RateLimitPlan } from '../../shared/rate-limits.ts';

/**
 * What API Gateway's usage plans do, for the local gateway: per API key, a token bucket of `burst` requests
 * refilled at `rate` per second, and a count of the UTC day's requests against the plan's daily quota. In
 * memory: a restart forgets the counts, as a deploy would not.
 */
interface Bucket {
  tokens: number;
  refilledAt: number;
  day: string;
  requests: number;
}

/** Allowed, or refused with the whole seconds to wait (the Retry-After) and whether the quota is spent. */
export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number; quota: boolean };

const DAY_MS = 86_400_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request of the key under its plan, if the plan lets it through now. */
  admit(key: string, plan: RateLimitPlan): Admission {
    const now = this.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const bucket = this.buckets.get(key) ?? { tokens: plan.burst, refilledAt: now, day, requests: 0 };
    this.buckets.set(key, bucket);
    // A plan change takes effect at once: the bucket never holds more than the plan's burst.
    bucket.tokens = Math.min(plan.burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * plan.rate);
    bucket.refilledAt = now;
    if (bucket.day !== day) Object.assign(bucket, { day, requests: 0 });
    if (plan.dailyQuota !== undefined && bucket.requests >= plan.dailyQuota) {
      const midnight = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
      return { allowed: false, retryAfterSeconds: Math.ceil((midnight - now) / 1000), quota: true };
    }
    if (bucket.tokens < 1) {
      const waitSeconds = (1 - bucket.tokens) / plan.rate;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitSeconds)), quota: false };
    }
    bucket.tokens -= 1;
    bucket.requests += 1;
    return { allowed: true };
  }
}
