/**
 * When a webhook delivery is tried (Standard Webhooks' retry schedule): at once, then after each failure
 * the next delay of the schedule, with jitter so that the retries of many deliveries that failed together
 * (an endpoint's outage) do not arrive together. After the last try a delivery is given up (`recover`
 * sends it again). An endpoint that keeps failing for DISABLE_AFTER_MS is disabled.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The delay before each try: the first is immediate; ten tries span about three days. */
export const RETRY_DELAYS_MS = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;

/** A delay is stretched or shrunk by up to this share of itself. */
export const JITTER = 0.2;
/** An endpoint failing (no success) for this long is disabled at its next failure. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR;
/** What an answer's Retry-After may push a try back by, at most: the schedule's longest delay. */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;
/** An answer must come within this (the specification's 15 s); anything slower is a failed try. */
export const DELIVERY_TIMEOUT_MS = 15 * SECOND;

/**
 * When the next try after `triesMade` failed tries is due, or undefined when the schedule is exhausted.
 * `retryAfterMs` (from a 429 or 503) is honoured: the try is never earlier than it asks.
 */
export function nextTryAt(
  triesMade: number,
  failedAtMs: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const delay = RETRY_DELAYS_MS[triesMade];
  if (delay === undefined) return undefined;
  const jittered = Math.round(delay * (1 + JITTER * (2 * random() - 1)));
  const asked = Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return failedAtMs + Math.max(jittered, asked);
}
