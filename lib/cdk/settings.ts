import type { Node } from 'constructs';
import { ORIGIN_SHAPE } from '../../shared/cors.ts';
import { QUOTA_DEFAULTS } from '../../shared/limits.ts';
import {
  MAX_RATE_LIMIT,
  MAX_RATE_LIMIT_PLANS,
  MIN_RATE_LIMIT,
  PLAN_NAME,
  RATE_LIMIT_DEFAULTS,
  RATE_LIMIT_WINDOWS,
  type RateLimitPlan,
  type RateLimits,
  type RateLimitWindow,
  SOURCE_RATE_LIMIT_DEFAULT,
  WAF_QUOTAS_URL,
  WAF_RATE_BASED_RULES,
} from '../../shared/rate-limits.ts';
import { ACCESS_LOG_FIELD_NAMES } from './access-log.ts';
import {
  CONCURRENCY_DEFAULTS,
  type ConcurrencyClass,
  type ConcurrencySettings,
  checkConcurrencyFits,
  checkTeamShares,
} from './concurrency.ts';

/** Memory (MB) of each function class, the classes of `concurrency`. */
export type FunctionMemory = Record<ConcurrencyClass, number>;
export const FUNCTION_MEMORY_DEFAULTS: FunctionMemory = {
  apiRoute: 512,
  autoConfigure: 1024,
  authorizer: 512,
  webhookDeliverer: 256,
  streamConsumer: 256,
  webhookSweeper: 256,
};
/** Lambda's range of function memory. */
const MIN_FUNCTION_MEMORY_MB = 128;
const MAX_FUNCTION_MEMORY_MB = 10240;

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
  /**
   * Stage-wide steady requests per second, and the burst above it: API Gateway's default account throttle
   * in a Region (10,000 a second, burst 5,000), which a stage cannot pass anyway. Each caller is held far
   * below it by its plan and its source address (docs/tenant-isolation.md, "Rate limits", "Capacity at the defaults").
   */
  throttleRate: 10000,
  throttleBurst: 5000,
  /**
   * How long API Gateway keeps the authorizer's answer for a token (its `resultsCacheTtl`, 0 to 3600 s; 0
   * asks the authorizer every request): also how long a revoked token keeps working at most. An expired
   * token stops at its expiry whatever this is (the route checks `expiresAt` from the answer's context).
   */
  authorizerCacheSeconds: 300,
  /**
   * Share of API requests X-Ray traces (an X-Ray sampling rule on the stage, over its reservoir of one
   * request a second), 0 to 1; 0 turns tracing off (the stage untraced, the functions only pass a trace
   * on). 1%, a fifth of X-Ray's own default: at 1,000 requests a second that still traces 36,000 an hour,
   * and the reservoir keeps a quiet stage traced; 5% would cost $0.25 per million requests, 100% $5, more
   * than API Gateway itself (README "Cost").
   */
  xraySampleRate: 0.01,
  /**
   * The fields of the access log's line, each a key of ACCESS_LOG_FIELDS (lib/cdk/access-log.ts). All of
   * them: the line (about 700 bytes, $0.33 per million requests) is what an incident is read from.
   */
  accessLogFields: ACCESS_LOG_FIELD_NAMES as string[],
  /**
   * Memory of each function class (MB, 128 to 10,240); Lambda gives CPU in proportion. The routes do a
   * few DynamoDB round trips (I/O bound): 512 keeps a cold start near its floor; auto-configure parses
   * web pages of up to 5 MB (1,024); the webhook functions and the consumer wait on I/O (256).
   */
  functionMemory: FUNCTION_MEMORY_DEFAULTS,
  /**
   * Point-in-time recovery of the table (35 days of restores, $0.20 per GB-month in us-east-1): on, the
   * table is the only copy of the teams' data.
   */
  pointInTimeRecovery: true,
  /**
   * Per-team rate limit plans (AWS WAF rate-based rules, lib/cdk/rate-limits.ts; the local gateway enforces
   * the same): at most `limit` requests per token in any `windowSeconds`. A team is in `defaultRateLimitPlan`
   * until the admin CLI assigns it another (`team plan`). Kept below the stage's throttle: one team cannot
   * take it all.
   */
  rateLimitPlans: RATE_LIMIT_DEFAULTS.plans as Record<string, RateLimitPlan>,
  defaultRateLimitPlan: RATE_LIMIT_DEFAULTS.defaultPlan,
  /**
   * Requests one source address may make in any `windowSeconds`, whatever tokens it sends (one more
   * rate-based rule, counted per IP before the plans and the authorizer): a caller inventing tokens is held
   * by it, which no plan can do. Above any one token's plan, so that an integration's server is not.
   */
  sourceRateLimit: SOURCE_RATE_LIMIT_DEFAULT as RateLimitPlan,
  /**
   * Browser origins allowed to call the API (CORS, shared/cors.ts): none by default, since the API is called
   * server to server with a bearer token. `-c corsOrigins=https://app.example.com,https://admin.example.com`.
   */
  corsOrigins: [] as string[],
  /**
   * Each function class's share of the account's Lambda concurrency, reserved for each of its functions
   * (lib/cdk/concurrency.ts; docs/tenant-isolation.md): at most this many run at once, and no other
   * function can take them. `accountQuota` is the account's concurrency quota in the Region: the shares must
   * fit it with Lambda's 100 unreserved left over, or the synth refuses them, saying what to change. Keys
   * not given keep their defaults: `-c 'concurrency={"accountQuota":3000,"apiRoute":25}'`.
   */
  concurrency: CONCURRENCY_DEFAULTS,
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
    /** Throttled invocations of a function: its share of concurrency (`concurrency`) is full, or, without
     * reservations, the account's. */
    lambdaThrottles: 0,
    /** Throttled read or write events of the table or its index: on demand, this is a hot key or a
     * traffic jump past twice the previous peak. */
    dynamoThrottled: 0,
    /** DynamoDB 500s (after the SDK's retries the API answers 503). */
    dynamoSystemErrors: 0,
    /** How far the change-event consumer may be behind the table stream (its iterator age, maximum):
     * it keeps up within seconds, so 5 minutes is a consumer failing or throttled. */
    streamIteratorAgeSeconds: 300,
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
  authorizerCacheSeconds: number;
  xraySampleRate: number;
  accessLogFields: string[];
  functionMemory: FunctionMemory;
  pointInTimeRecovery: boolean;
  rateLimitPlans: Record<string, RateLimitPlan>;
  defaultRateLimitPlan: string;
  sourceRateLimit: RateLimitPlan;
  corsOrigins: string[];
  concurrency: ConcurrencySettings;
  alarms: AlarmThresholds;
  /** Subscribed to the alarm topic when set. @default no subscription */
  alarmEmail?: string;
  /** Per-team quota defaults of this deployment, over QUOTA_DEFAULTS (shared/limits.ts). */
  quotas?: Partial<typeof QUOTA_DEFAULTS>;
}

/** API Gateway's longest authorizer cache (resultsCacheTtl): an hour. */
const MAX_AUTHORIZER_CACHE_SECONDS = 3600;
/** Powertools' log levels (any case). */
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];
/** The service is a CloudWatch dimension value (CDK allows 255 characters), the namespace CloudWatch's (255). */
const MAX_NAME_LENGTH = 255;

/** The settings of the app's context (cdk.json and `-c`), checked: a typo fails the synth, naming the key. */
export function readSettings(node: Node): Settings {
  const defaults = DEFAULT_SETTINGS;
  const text = (key: string, fallback: string) => {
    const value = node.tryGetContext(key) ?? fallback;
    if (typeof value !== 'string' || !value.trim()) throw new Error(`context ${key}: a non-empty string`);
    if (value.trim().length > MAX_NAME_LENGTH)
      throw new Error(`context ${key}: ${MAX_NAME_LENGTH} characters at most`);
    return value.trim();
  };
  const logLevel = text('logLevel', defaults.logLevel).toUpperCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`context logLevel: one of ${LOG_LEVELS.join(', ')}`);
  const alarmEmail = node.tryGetContext('alarmEmail') as unknown;
  if (alarmEmail !== undefined && (typeof alarmEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(alarmEmail))) {
    throw new Error('context alarmEmail: an email address');
  }
  const settings: Settings = {
    serviceName: text('serviceName', defaults.serviceName),
    metricsNamespace: text('metricsNamespace', defaults.metricsNamespace),
    logLevel,
    throttleRate: positive('throttleRate', node.tryGetContext('throttleRate') ?? defaults.throttleRate),
    // API Gateway's burst is a whole number of requests.
    throttleBurst: whole('throttleBurst', node.tryGetContext('throttleBurst') ?? defaults.throttleBurst, 1),
    authorizerCacheSeconds: authorizerCacheSeconds(
      node.tryGetContext('authorizerCacheSeconds') ?? defaults.authorizerCacheSeconds,
    ),
    xraySampleRate: fraction(
      'xraySampleRate',
      node.tryGetContext('xraySampleRate') ?? defaults.xraySampleRate,
    ),
    accessLogFields: accessLogFields(node.tryGetContext('accessLogFields') ?? defaults.accessLogFields),
    functionMemory: functionMemory(node.tryGetContext('functionMemory')),
    pointInTimeRecovery: flag(
      'pointInTimeRecovery',
      node.tryGetContext('pointInTimeRecovery') ?? defaults.pointInTimeRecovery,
    ),
    ...rateLimits(node.tryGetContext('rateLimitPlans'), node.tryGetContext('defaultRateLimitPlan')),
    sourceRateLimit: rateLimitPlan(
      'sourceRateLimit',
      node.tryGetContext('sourceRateLimit') ?? defaults.sourceRateLimit,
    ),
    corsOrigins: corsOrigins(node.tryGetContext('corsOrigins') ?? defaults.corsOrigins),
    concurrency: concurrencyShares(node.tryGetContext('concurrency')),
    alarms: alarmThresholds(node.tryGetContext('alarms')),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...quotaDefaults(node.tryGetContext('quotas')),
  };
  checkEnvironmentSize(settings);
  return settings;
}

export const rateLimitsOf = (settings: Settings): RateLimits => ({
  plans: settings.rateLimitPlans,
  defaultPlan: settings.defaultRateLimitPlan,
  perSource: settings.sourceRateLimit,
});

/**
 * What every function reads from the settings (shared/config.ts): the logger's and metrics' settings, the
 * deployment's quota defaults when it sets any, and its browser origins.
 */
export function functionEnvironment(settings: Settings): Record<string, string> {
  return {
    SERVICE_NAME: settings.serviceName,
    METRICS_NAMESPACE: settings.metricsNamespace,
    LOG_LEVEL: settings.logLevel,
    ...(settings.quotas && { QUOTAS: JSON.stringify(settings.quotas) }),
    ...(settings.corsOrigins.length && { CORS_ORIGINS: settings.corsOrigins.join(',') }),
  };
}

/**
 * What a route behind the authorizer reads too: the rate limit plans, to tell its caller the plan it is held
 * to (RateLimit-Policy on every answer, GET /limits). No other function reads them: the authorizer answers
 * with the plan's name alone, the stream consumer and the webhook functions answer no caller, and a public
 * route's caller has no plan.
 * About 0.9 KB a function at the settings' largest (10 plans): given to the others, it would only fill the
 * template.
 */
export const rateLimitsEnvironment = (settings: Settings): Record<string, string> => ({
  RATE_LIMITS: JSON.stringify(rateLimitsOf(settings)),
});

/** The context key behind each of those variables, named when they do not fit. */
const KEY_OF_VARIABLE: Record<string, string> = {
  SERVICE_NAME: 'serviceName',
  METRICS_NAMESPACE: 'metricsNamespace',
  LOG_LEVEL: 'logLevel',
  QUOTAS: 'quotas',
  RATE_LIMITS: 'rateLimitPlans',
  CORS_ORIGINS: 'corsOrigins',
};

/**
 * Lambda's limit on a function's environment variables: 4 KB of the JSON of the name-value map (its refusal
 * quotes that JSON as the "String measured"), so quotes, escapes and punctuation count too.
 */
export const LAMBDA_ENVIRONMENT_BYTES = 4096;
export const environmentBytes = (variables: Record<string, unknown>): number =>
  Buffer.byteLength(JSON.stringify(variables));
/**
 * What the settings' variables may take of it. The stack adds TABLE_NAME (a table name: 255 characters at
 * most), PRIVATE_BUCKET and PUBLIC_BUCKET (bucket names: 63), PUBLIC_BASE_URL (`https://` and a 29-character
 * CloudFront domain) and NODE_OPTIONS: 532 bytes at most with names and punctuation (the change-event
 * consumer has EVENT_BUS_NAME, 256 at most, instead of the buckets: about 650); the functions that start
 * webhook deliveries add WEBHOOK_DELIVERER_FUNCTION (a function name, 64 at most: about 95 more); 1 KB
 * leaves room for another. test/lib/cdk/deploy-limits.stack.test.ts holds the stack to it.
 */
const SETTINGS_ENVIRONMENT_BYTES = LAMBDA_ENVIRONMENT_BYTES - 1024;

/** A deploy would fail on the first function (e.g. too many rate limit plans): refused here, naming the key. */
function checkEnvironmentSize(settings: Settings): void {
  const variables = Object.entries({ ...functionEnvironment(settings), ...rateLimitsEnvironment(settings) });
  const size = environmentBytes(Object.fromEntries(variables));
  if (size <= SETTINGS_ENVIRONMENT_BYTES) return;
  const [name, value] = variables.reduce((a, b) => (b[1].length > a[1].length ? b : a));
  throw new Error(
    `context ${KEY_OF_VARIABLE[name]}: too large for Lambda's 4 KB of environment variables (the settings' ` +
      `variables take ${size} bytes, ${SETTINGS_ENVIRONMENT_BYTES} at most; ${name} alone ${value.length})`,
  );
}

/** `corsOrigins` as a list (cdk.json) or comma-separated text (`-c`): each exactly as a browser sends Origin. */
function corsOrigins(context: unknown): string[] {
  const origins = typeof context === 'string' ? context.split(',').map((origin) => origin.trim()) : context;
  if (!Array.isArray(origins)) throw new Error('context corsOrigins: a list of origins');
  for (const origin of origins) {
    // `*` would let any page read answers to requests its visitors' browsers make.
    if (typeof origin !== 'string' || !ORIGIN_SHAPE.test(origin)) {
      throw new Error(
        `context corsOrigins: ${JSON.stringify(origin)} is not an origin like https://app.example.com`,
      );
    }
  }
  return [...new Set(origins as string[])];
}

/** `quotas` as an object or JSON text: whole numbers for known kinds only. */
function quotaDefaults(context: unknown): { quotas?: Partial<typeof QUOTA_DEFAULTS> } {
  if (context === undefined) return {};
  const quotas: Partial<typeof QUOTA_DEFAULTS> = {};
  for (const [key, value] of knownEntries('quotas', contextObject('quotas', context), QUOTA_DEFAULTS)) {
    quotas[key] = whole(`quotas.${key}`, value, 0);
  }
  return { quotas };
}

/**
 * `rateLimitPlans` as an object (cdk.json) or JSON text (`-c rateLimitPlans=...`): given, it replaces the
 * default plans as a whole (a plan left out is a plan removed). Plan names become WAF rule names, token
 * prefixes and CLI arguments: letters, digits and dashes. At most MAX_RATE_LIMIT_PLANS: each plan is a
 * rate-based rule of the one web ACL, and WAF's quota of them is fixed.
 */
function rateLimits(
  context: unknown,
  defaultContext: unknown,
): Pick<Settings, 'rateLimitPlans' | 'defaultRateLimitPlan'> {
  const plans = contextObject('rateLimitPlans', context ?? DEFAULT_SETTINGS.rateLimitPlans);
  const count = Object.keys(plans).length;
  if (!count) throw new Error('context rateLimitPlans: at least one plan');
  if (count > MAX_RATE_LIMIT_PLANS) {
    throw new Error(
      `context rateLimitPlans: at most ${MAX_RATE_LIMIT_PLANS} plans, ${count} given: each plan, the default's ` +
        `included, is a rate-based rule of the API's web ACL beside the per-source rule, and AWS WAF allows ` +
        `${WAF_RATE_BASED_RULES} rate-based rules per web ACL, a fixed quota (${WAF_QUOTAS_URL})`,
    );
  }
  const checked: Record<string, RateLimitPlan> = {};
  for (const [name, plan] of Object.entries(plans)) {
    if (!PLAN_NAME.test(name)) throw new Error(`context rateLimitPlans.${name}: a-z, 0-9, -`);
    checked[name] = rateLimitPlan(`rateLimitPlans.${name}`, plan);
  }
  const defaultRateLimitPlan = defaultContext ?? DEFAULT_SETTINGS.defaultRateLimitPlan;
  if (typeof defaultRateLimitPlan !== 'string' || !(defaultRateLimitPlan in checked)) {
    throw new Error(`context defaultRateLimitPlan: one of ${Object.keys(checked).join(', ')}`);
  }
  return { rateLimitPlans: checked, defaultRateLimitPlan };
}

/** `{"limit": n, "windowSeconds": w}` (also as `-c` JSON text) within WAF's range of a rate-based rule. */
function rateLimitPlan(key: string, context: unknown): RateLimitPlan {
  const given = Object.fromEntries(
    knownEntries(key, contextObject(key, context), { limit: 0, windowSeconds: 0 }),
  );
  return {
    limit: whole(`${key}.limit`, given.limit, MIN_RATE_LIMIT, MAX_RATE_LIMIT),
    windowSeconds: rateLimitWindow(`${key}.windowSeconds`, given.windowSeconds),
  };
}

/** Whole seconds in API Gateway's range for an authorizer's cache, also as `-c` text. */
function authorizerCacheSeconds(value: unknown): number {
  const seconds = typeof value === 'string' && value.trim() ? Number(value) : value;
  if (
    typeof seconds !== 'number' ||
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    seconds > MAX_AUTHORIZER_CACHE_SECONDS
  ) {
    throw new Error(
      `context authorizerCacheSeconds: whole seconds, 0 (no cache) to ${MAX_AUTHORIZER_CACHE_SECONDS} ` +
        "(API Gateway's range for an authorizer's cache)",
    );
  }
  return seconds;
}

/** A share from 0 to 1, also as `-c` text. */
function fraction(key: string, value: unknown): number {
  const number = nonNegative(key, value);
  if (number > 1) throw new Error(`context ${key}: a number from 0 to 1`);
  return number;
}

/** `accessLogFields` as a list (cdk.json) or comma-separated text (`-c`): known fields, at least one. */
function accessLogFields(context: unknown): string[] {
  const fields = typeof context === 'string' ? context.split(',').map((field) => field.trim()) : context;
  if (!Array.isArray(fields) || !fields.length) throw new Error('context accessLogFields: a list of fields');
  for (const field of fields) {
    if (!ACCESS_LOG_FIELD_NAMES.includes(field)) {
      throw new Error(
        `context accessLogFields: ${JSON.stringify(field)} unknown (${ACCESS_LOG_FIELD_NAMES.join(', ')})`,
      );
    }
  }
  return [...new Set(fields as string[])];
}

/** `functionMemory` as an object or JSON text, over the defaults key by key: Lambda's 128 to 10,240 MB. */
function functionMemory(context: unknown): FunctionMemory {
  const memory = { ...FUNCTION_MEMORY_DEFAULTS };
  for (const [key, value] of knownEntries(
    'functionMemory',
    contextObject('functionMemory', context ?? {}),
    memory,
  )) {
    memory[key] = whole(`functionMemory.${key}`, value, MIN_FUNCTION_MEMORY_MB, MAX_FUNCTION_MEMORY_MB);
  }
  return memory;
}

/** One of AWS WAF's evaluation windows: WAF refuses any other. */
function rateLimitWindow(key: string, value: unknown): RateLimitWindow {
  const window = RATE_LIMIT_WINDOWS.find((seconds) => seconds === value);
  if (window === undefined) throw new Error(`context ${key}: one of ${RATE_LIMIT_WINDOWS.join(', ')}`);
  return window;
}

/**
 * `concurrency` as an object (cdk.json) or JSON text (`-c concurrency=...`), over the defaults key by key:
 * whole numbers, each share at least 1 (a reservation of 0 would stop its function) but `apiRoute`, whose 0
 * reserves nothing (concurrency.ts), and shares that fit.
 */
function concurrencyShares(context: unknown): ConcurrencySettings {
  const concurrency = { ...DEFAULT_SETTINGS.concurrency };
  const given = knownEntries('concurrency', contextObject('concurrency', context ?? {}), concurrency);
  for (const [key, value] of given) {
    if (key === 'reserve') concurrency.reserve = flag(`concurrency.${key}`, value);
    else concurrency[key] = whole(`concurrency.${key}`, value, key === 'apiRoute' ? 0 : 1);
  }
  checkConcurrencyFits(concurrency);
  checkTeamShares(concurrency);
  return concurrency;
}

/** true or false, also as `-c` text. */
function flag(key: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key}: true or false`);
}

/** `alarms` as an object (cdk.json) or JSON text (`-c alarms=...`), over the defaults key by key. */
function alarmThresholds(context: unknown): AlarmThresholds {
  const alarms = { ...DEFAULT_SETTINGS.alarms };
  for (const [key, value] of knownEntries('alarms', contextObject('alarms', context ?? {}), alarms)) {
    alarms[key] = nonNegative(`alarms.${key}`, value);
  }
  for (const key of ['evaluationPeriods', 'datapointsToAlarm'] as const)
    whole(`alarms.${key}`, alarms[key], 1);
  if (alarms.datapointsToAlarm > alarms.evaluationPeriods) {
    throw new Error('context alarms: datapointsToAlarm must be at most evaluationPeriods');
  }
  return alarms;
}

/** An object given in cdk.json, or as JSON text with `-c key=...`. */
function contextObject(key: string, context: unknown): Record<string, unknown> {
  let given = context;
  if (typeof context === 'string') {
    try {
      given = JSON.parse(context);
    } catch {
      throw new Error(`context ${key}: not valid JSON`);
    }
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new Error(`context ${key}: an object`);
  }
  return given as Record<string, unknown>;
}

/** The object's entries, each named by a key of `known` (a typo fails the synth, naming it). */
function knownEntries<K extends string>(
  key: string,
  given: Record<string, unknown>,
  known: Record<K, unknown>,
): Array<[K, unknown]> {
  return Object.entries(given).map(([name, value]) => {
    if (!(name in known))
      throw new Error(`context ${key}.${name}: unknown (${Object.keys(known).join(', ')})`);
    return [name as K, value];
  });
}

/** A whole number of at least `min`. */
function whole(key: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = nonNegative(key, value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new Error(
      `context ${key}: a whole number, ${min} or more${max < Number.MAX_SAFE_INTEGER ? ` and ${max} at most` : ''}`,
    );
  }
  return number;
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
