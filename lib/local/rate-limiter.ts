import type { RateLimitPlan } from '../../shared/rate-limits.ts';

/**
 * What an AWS WAF rate-based rule does, for the local gateway: per aggregation key (a token, under a plan's
 * rule), the requests of the last `windowSeconds` are counted, refused ones included (WAF counts every request
 * its rule's scope matches), and a request over the plan's `limit` is refused. Counted in one-second buckets;
 * WAF estimates the same count and acts within seconds (docs/tenant-isolation.md, "Rate limits"). In memory: a restart
 * forgets the counts.
 */
export interface Admission {
  allowed: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Whole seconds until the window holds fewer requests: when a refused request would pass. */
  resetSeconds: number;
}

interface Bucket {
  second: number;
  count: number;
}

/** Idle keys are dropped every this many admissions, so that a stream of new tokens cannot grow the map. */
const SWEEP_EVERY = 10_000;

export class RateLimiter {
  private readonly windows = new Map<string, Bucket[]>();
  private admissions = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request of the key under its plan; allowed while the window held fewer than `limit`. */
  admit(key: string, plan: RateLimitPlan): Admission {
    const nowMs = this.now();
    const second = Math.floor(nowMs / 1000);
    if (++this.admissions % SWEEP_EVERY === 0) this.sweep(second, plan.windowSeconds);
    const buckets = this.windows.get(key) ?? [];
    this.windows.set(key, buckets);
    // Buckets older than the window no longer count (a plan change takes its own window at once).
    while (buckets.length && (buckets[0]?.second ?? 0) <= second - plan.windowSeconds) buckets.shift();
    const counted = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
    const last = buckets.at(-1);
    if (last?.second === second) last.count += 1;
    else buckets.push({ second, count: 1 });
    const allowed = counted < plan.limit;
    return {
      allowed,
      remaining: Math.max(0, plan.limit - counted - 1),
      resetSeconds: this.secondsUntilBelow(buckets, plan, nowMs),
    };
  }

  /** Seconds until the oldest requests leave the window and the count is below the limit again. */
  private secondsUntilBelow(buckets: Bucket[], plan: RateLimitPlan, nowMs: number): number {
    let excess = buckets.reduce((sum, bucket) => sum + bucket.count, 0) - plan.limit + 1;
    for (const bucket of buckets) {
      if (excess <= 0) break;
      excess -= bucket.count;
      if (excess <= 0)
        return Math.max(1, Math.ceil(((bucket.second + plan.windowSeconds) * 1000 - nowMs) / 1000));
    }
    // Below the limit: the window's oldest request is the next to leave it.
    const oldest = buckets[0]?.second ?? Math.floor(nowMs / 1000);
    return Math.max(1, Math.ceil(((oldest + plan.windowSeconds) * 1000 - nowMs) / 1000));
  }

  private sweep(second: number, windowSeconds: number): void {
    // The longest WAF window bounds how long a key can matter; a shorter plan's keys go at the next sweep.
    const horizon = second - Math.max(windowSeconds, 600);
    for (const [key, buckets] of this.windows) {
      if ((buckets.at(-1)?.second ?? 0) <= horizon) this.windows.delete(key);
    }
  }
}
