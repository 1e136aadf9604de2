import { QUOTA_DEFAULTS } from '../../shared/limits.ts';
import { MAX_RATE_LIMIT_PLANS } from '../../shared/rate-limits.ts';

/** The longest plan name the settings take (lib/cdk/settings.ts). */
const planName = (index: number) => `plan-${String(index).padStart(2, '0')}-`.padEnd(32, 'x');

/** `count` plans with the longest names and limits (WAF's largest, 2,000,000,000), the last the default. */
export const largestPlans = (count: number) => ({
  rateLimitPlans: JSON.stringify(
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => [
        planName(index),
        { limit: 2_000_000_000 - index, windowSeconds: 600 },
      ]),
    ),
  ),
  defaultRateLimitPlan: planName(count - 1),
});

/**
 * Every optional setting on, each at the longest value the settings take or a deployment would plausibly
 * use, as `-c key=value` strings: what makes the functions' environment, the roles, and the template
 * largest. The names are at their 255-character limit, the plans as many as the settings take (AWS WAF's
 * 10 rate-based rules per web ACL, the per-source rule's included).
 */
export const LARGEST_SETTINGS: Record<string, string> = {
  serviceName: 's'.repeat(255),
  metricsNamespace: 'N'.repeat(255),
  logLevel: 'CRITICAL',
  throttleRate: '9999.5',
  throttleBurst: '19999',
  ...largestPlans(MAX_RATE_LIMIT_PLANS),
  sourceRateLimit: JSON.stringify({ limit: 2_000_000_000, windowSeconds: 600 }),
  alarms: JSON.stringify({
    api5xxRatePercent: 2.5,
    p99LatencyMs: 2000,
    webP99LatencyMs: 12000,
    lambdaErrors: 3,
    lambdaThrottles: 3,
    dynamoThrottled: 10,
    dynamoSystemErrors: 1,
    streamIteratorAgeSeconds: 900,
    publicBucket5xx: 20,
    evaluationPeriods: 5,
    datapointsToAlarm: 4,
  }),
  alarmEmail: 'team-messaging-api-operations-on-call@platform-alerts.example-company.example',
  // A large account's shares: every function reserves some of a quota of 50,000, each route its own 100 (the
  // routes' shares grow with the routes: 100 more at 100 each is 10,000 more).
  concurrency: JSON.stringify({
    accountQuota: 50_000,
    reserve: true,
    apiRoute: 100,
    autoConfigure: 1000,
    authorizer: 2000,
    webhookDeliverer: 5000,
    streamConsumer: 100,
    webhookSweeper: 1,
  }),
  quotas: JSON.stringify(
    Object.fromEntries(Object.keys(QUOTA_DEFAULTS).map((kind) => [kind, 9_999_999_999])),
  ),
  uploadOrigins: Array.from({ length: 8 }, (_, i) => `https://app-${i}.customer.example.com`).join(','),
  // Browser apps of a platform: a couple, sharing the environment with the most plans WAF takes.
  corsOrigins: 'https://app.customer.example.com,https://admin.customer.example.com',
};
