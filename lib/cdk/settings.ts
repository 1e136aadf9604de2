import type { Node } from 'constructs';
import { QUOTA_DEFAULTS } from '../../shared/limits.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitPlan } from '../../shared/rate-limits.ts';

/**
 * What `cdk.json` ("context") configures, with the defaults it lists: the CLI reads cdk.json, a test or
 * the bench synthesizing without it gets the same values from here (a test keeps the two equal). Any key
 * can be overridden per command, e.g. `-c throttleRate=50` or `-c 'alarms={"p99LatencyMs":2000}'` (alarm
 * keys not given keep their defaults).
 */
export const DEFAULT_SETTINGS = {
  /** The `service` dimension and log field of every function (SERVICE_NAME). */
  serviceName: 'team-messaging-api',
  /** CloudWatch namespace of the functions' own (embedded metric format) metrics (METRICS_NAMESPACE). */
  metricsNamespace: 'TeamMessagingApi',
  /** Lowest level the functions log (LOG_LEVEL). */
  logLevel: 'INFO',
  /** Stage-wide steady requests per second, and the burst above it. */
  throttleRate: 100,
  throttleBurst: 200,
  /**
   * Per-team usage plans (API Gateway usage plans; the local gateway enforces the same): steady requests per
   * second, the burst above it and an optional daily quota. A team is in `defaultRateLimitPlan` until the
   * admin CLI assigns it another (`team plan`). Kept below the stage's throttle: one team cannot take it all.
   */
  rateLimitPlans: RATE_LIMIT_DEFAULTS.plans as Record<string, RateLimitPlan>,
  defaultRateLimitPlan: RATE_LIMIT_DEFAULTS.defaultPlan,
  /**
   * Alarm thresholds: an alarm fires when the value is above its threshold in `datapointsToAlarm` of
   * `evaluationPeriods` consecutive 5-minute periods (2 of 3: a sustained problem alarms within 10 minutes,
   * one bad spike does not).
   */
  alarms: {
    /** Share of API requests answered 5xx. Handlers answer their own failures 500/503: 1% is an outage. */
    api5xxRatePercent: 1,
    /** p99 of a route's latency at API Gateway. A route does a few DynamoDB round trips (tens of ms) and
     * a cold start costs about a second; 3 s means SDK retries against a slow dependency. */
    p99LatencyMs: 3000,
    /** The same for routes that fetch web pages (auto-configure: ~8 s fetch budget, 15 s timeout). */
    webP99LatencyMs: 10000,
    /** Lambda errors of a function. Handlers answer their own errors, so these are crashes and timeouts
     * (for the authorizer: failures, its 401 denials excluded): any is worth a look. */
    lambdaErrors: 0,
    /** Throttled invocations of a function: the account's concurrency is exhausted. */
    lambdaThrottles: 0,
    /** Throttled read or write events of the table or its index: on demand, this is a hot key or a
     * traffic jump past twice the previous peak. */
    dynamoThrottled: 0,
    /** DynamoDB 500s (after the SDK's retries the API answers 503). */
    dynamoSystemErrors: 0,
    /** 5xx answers of the public bucket: S3 asks clients to retry an occasional 500/503 (CloudFront and
     * the SDK do), a handful is normal, a stream is an S3 problem. */
    publicBucket5xx: 5,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
  },
};

export type AlarmThresholds = typeof DEFAULT_SETTINGS.alarms;

export interface Settings {
  serviceName: string;
  metricsNamespace: string;
  logLevel: string;
  throttleRate: number;
  throttleBurst: number;
  rateLimitPlans: Record<string, RateLimitPlan>;
  defaultRateLimitPlan: string;
  alarms: AlarmThresholds;
  /** Subscribed to the alarm topic when set. @default no subscription */
  alarmEmail?: string;
  /** Per-team quota defaults of this deployment, over QUOTA_DEFAULTS (shared/limits.ts). */
  quotas?: Partial<typeof QUOTA_DEFAULTS>;
}

/** Powertools' log levels (any case). */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/** The settings of the app's context (cdk.json and `-c`), checked: a typo fails the synth, naming the key. */
export function readSettings(node: Node): Settings {
  const defaults = DEFAULT_SETTINGS;
  const text = (key: string, fallback: string) => {
    const value = node.tryGetContext(key) ?? fallback;
    if (typeof value !== 'string' || !value.trim()) throw new Error(`context ${key}: a non-empty string`);
    return value.trim();
  };
  const logLevel = text('logLevel', defaults.logLevel).toUpperCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`context logLevel: one of ${LOG_LEVELS.join(', ')}`);
  const alarmEmail = node.tryGetContext('alarmEmail') as unknown;
  if (alarmEmail !== undefined && (typeof alarmEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(alarmEmail))) {
    throw new Error('context alarmEmail: an email address');
  }
  return {
    serviceName: text('serviceName', defaults.serviceName),
    metricsNamespace: text('metricsNamespace', defaults.metricsNamespace),
    logLevel,
    throttleRate: positive('throttleRate', node.tryGetContext('throttleRate') ?? defaults.throttleRate),
    throttleBurst: positive('throttleBurst', node.tryGetContext('throttleBurst') ?? defaults.throttleBurst),
    ...rateLimits(node.tryGetContext('rateLimitPlans'), node.tryGetContext('defaultRateLimitPlan')),
    alarms: alarmThresholds(node.tryGetContext('alarms')),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...quotaDefaults(node.tryGetContext('quotas')),
  };
}

/** `quotas` as an object or JSON text: whole numbers for known kinds only. */
function quotaDefaults(context: unknown): { quotas?: Partial<typeof QUOTA_DEFAULTS> } {
  if (context === undefined) return {};
  const given = typeof context === 'string' ? (JSON.parse(context) as unknown) : context;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new Error('context quotas: an object of quotas');
  }
  const quotas: Partial<typeof QUOTA_DEFAULTS> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!(key in QUOTA_DEFAULTS))
      throw new Error(`context quotas.${key}: unknown (${Object.keys(QUOTA_DEFAULTS).join(', ')})`);
    if (!Number.isInteger(value) || (value as number) < 0)
      throw new Error(`context quotas.${key}: a whole number`);
    quotas[key as keyof typeof QUOTA_DEFAULTS] = value as number;
  }
  return { quotas };
}

/**
 * `rateLimitPlans` as an object (cdk.json) or JSON text (`-c rateLimitPlans=...`): given, it replaces the
 * default plans as a whole (a plan left out is a plan removed). Plan names become usage plan names and CLI
 * arguments: letters, digits and dashes.
 */
function rateLimits(
  context: unknown,
  defaultContext: unknown,
): Pick<Settings, 'rateLimitPlans' | 'defaultRateLimitPlan'> {
  const given = typeof context === 'string' ? (JSON.parse(context) as unknown) : context;
  const plans = given ?? DEFAULT_SETTINGS.rateLimitPlans;
  if (typeof plans !== 'object' || plans === null || Array.isArray(plans) || !Object.keys(plans).length) {
    throw new Error('context rateLimitPlans: an object of plans, {"name": {"rate", "burst", "dailyQuota"?}}');
  }
  const checked: Record<string, RateLimitPlan> = {};
  for (const [name, plan] of Object.entries(plans as Record<string, Record<string, unknown>>)) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(name)) throw new Error(`context rateLimitPlans.${name}: a-z, 0-9, -`);
    const { rate, burst, dailyQuota, ...unknown } = plan ?? {};
    if (Object.keys(unknown).length) {
      throw new Error(
        `context rateLimitPlans.${name}.${Object.keys(unknown)[0]}: unknown (rate, burst, dailyQuota)`,
      );
    }
    const wholeAtLeastOne = (key: string, value: unknown) => {
      const number = positive(`rateLimitPlans.${name}.${key}`, value);
      if (!Number.isInteger(number)) throw new Error(`context rateLimitPlans.${name}.${key}: a whole number`);
      return number;
    };
    checked[name] = {
      rate: positive(`rateLimitPlans.${name}.rate`, rate),
      burst: wholeAtLeastOne('burst', burst),
      ...(dailyQuota === undefined ? {} : { dailyQuota: wholeAtLeastOne('dailyQuota', dailyQuota) }),
    };
  }
  const defaultRateLimitPlan = defaultContext ?? DEFAULT_SETTINGS.defaultRateLimitPlan;
  if (typeof defaultRateLimitPlan !== 'string' || !(defaultRateLimitPlan in checked)) {
    throw new Error(`context defaultRateLimitPlan: one of ${Object.keys(checked).join(', ')}`);
  }
  return { rateLimitPlans: checked, defaultRateLimitPlan };
}

/** `alarms` as an object (cdk.json) or JSON text (`-c alarms=...`), over the defaults key by key. */
function alarmThresholds(context: unknown): AlarmThresholds {
  const given = typeof context === 'string' ? (JSON.parse(context) as unknown) : (context ?? {});
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new Error('context alarms: an object of thresholds');
  }
  const alarms = { ...DEFAULT_SETTINGS.alarms };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in alarms))
      throw new Error(`context alarms.${key}: unknown (${Object.keys(alarms).join(', ')})`);
    alarms[key as keyof AlarmThresholds] = nonNegative(`alarms.${key}`, value);
  }
  for (const key of ['evaluationPeriods', 'datapointsToAlarm'] as const) {
    if (!Number.isInteger(alarms[key]) || alarms[key] < 1)
      throw new Error(`context alarms.${key}: 1 or more`);
  }
  if (alarms.datapointsToAlarm > alarms.evaluationPeriods) {
    throw new Error('context alarms: datapointsToAlarm must be at most evaluationPeriods');
  }
  return alarms;
}

/** A number, also from `-c key=value` (a string). */
function nonNegative(key: string, value: unknown): number {
  const number = typeof value === 'string' && value.trim() ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
    throw new Error(`context ${key}: a number of at least 0`);
  }
  return number;
}

function positive(key: string, value: unknown): number {
  const number = nonNegative(key, value);
  if (number <= 0) throw new Error(`context ${key}: a number above 0`);
  return number;
}
