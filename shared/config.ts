import { QUOTA_DEFAULTS, TIMEOUTS } from './limits.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimits } from './rate-limits.ts';

/**
 * Configuration: the one place that reads the environment. In Lambda it is the process environment, read
 * on first use; an entry point that knows its own settings (the local server, the admin CLI, the bench,
 * the tests) hands them to `configure()` before serving. Nothing reads it while modules load, so no entry
 * point depends on import order. Each function needs only some of it (the authorizer has no buckets), so a
 * missing variable fails where it is first used, naming the variable.
 */
export type Environment = Readonly<Record<string, string | undefined>>;

let environment: Environment | undefined;

/** Sets the environment the process runs with, replacing the process environment's values. */
export function configure(settings: Environment): void {
  environment = { ...settings };
}

const setting = (name: string): string | undefined => {
  environment ??= { ...process.env };
  return environment[name] || undefined;
};

function required(name: string): string {
  const value = setting(name);
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

export const config = {
  tableName: () => required('TABLE_NAME'),
  privateBucket: () => required('PRIVATE_BUCKET'),
  publicBucket: () => required('PUBLIC_BUCKET'),
  /** Base URL under which public-library objects are served (CloudFront in AWS, s3rver locally). */
  publicBaseUrl: () => required('PUBLIC_BASE_URL').replace(/\/+$/, ''),
  /** Set only locally and in tests: endpoints of DynamoDB Local and s3rver. */
  dynamodbEndpoint: () => setting('DYNAMODB_ENDPOINT'),
  s3Endpoint: () => setting('S3_ENDPOINT'),
  /** The EventBridge bus change events go to (the stack's); locally the stand-in's endpoint too. */
  eventBusName: () => required('EVENT_BUS_NAME'),
  eventBridgeEndpoint: () => setting('EVENTBRIDGE_ENDPOINT'),
  /** The function that sends webhook deliveries (invoked asynchronously); locally the stand-in's endpoint too. */
  webhookDelivererFunction: () => required('WEBHOOK_DELIVERER_FUNCTION'),
  lambdaEndpoint: () => setting('LAMBDA_ENDPOINT'),
  /**
   * The KMS key webhook signing secrets are sealed under (its ARN; shared/data/secret-envelope.ts), set
   * only for the functions granted it; locally the stand-in's key, and KMS_ENDPOINT the stand-in.
   */
  signingSecretsKey: () => required('SIGNING_SECRETS_KEY'),
  kmsEndpoint: () => setting('KMS_ENDPOINT'),
  /**
   * The AWS SDK clients' connection and request timeouts (aws.ts): production's (limits.ts) unless set. Only
   * the tests set longer ones, so that a dependency slowed by a busy machine is waited for and only a hang
   * is cut; a test of the 503 a slow dependency becomes runs with production's.
   */
  sdkConnectTimeoutMs: () => Number(setting('SDK_CONNECT_TIMEOUT_MS') ?? TIMEOUTS.connectMs),
  sdkRequestTimeoutMs: () => Number(setting('SDK_REQUEST_TIMEOUT_MS') ?? TIMEOUTS.requestMs),
  /**
   * How long the local gateway waits for a function or the authorizer (lib/local/gateway.ts): unset,
   * production's timeouts. Only the tests set one, which only a hang reaches: with their SDK timeouts a
   * function on a busy machine can wait for DynamoDB Local longer than its production timeout; a test of
   * the 504 runs with production's.
   */
  localGatewayWaitMs: (): number | undefined => {
    const wait = setting('LOCAL_GATEWAY_WAIT_MS');
    return wait === undefined ? undefined : Number(wait);
  },
  region: () => setting('AWS_REGION') ?? setting('AWS_DEFAULT_REGION') ?? 'us-east-1',
  /** DEBUG, INFO, WARN, ERROR or SILENT (any case); SILENT turns the JSON logs off (tests). */
  logLevel: () => setting('LOG_LEVEL') ?? 'INFO',
  /** The `service` of every log line and metric. */
  serviceName: () => setting('SERVICE_NAME') ?? 'team-messaging-api',
  metricsNamespace: () => setting('METRICS_NAMESPACE') ?? 'TeamMessagingApi',
  /** `off` keeps metrics from being written (tests; an interactive `npm start`). */
  metricsEnabled: () => setting('METRICS') !== 'off',
  /** Ids each process reserves at once per sequence (shared/data/ids.ts). */
  idBlockSize: () => Number(setting('ID_BLOCK_SIZE') ?? 50),
  /** Auto-configure may fetch from loopback addresses: a local test hook (target-policy.ts ignores it in Lambda). */
  autoconfigureAllowLoopback: () => setting('AUTOCONFIGURE_ALLOW_LOOPBACK') === '1',
  /** Each team's quotas unless the admin CLI sets its own: `QUOTAS` as JSON over QUOTA_DEFAULTS. */
  quotaDefaults: (): typeof QUOTA_DEFAULTS => ({
    ...QUOTA_DEFAULTS,
    ...(JSON.parse(setting('QUOTAS') ?? '{}') as Partial<typeof QUOTA_DEFAULTS>),
  }),
  /** The rate limit plans and the default plan: `RATE_LIMITS` as JSON when cdk.json sets others. */
  rateLimits: (): RateLimits => JSON.parse(setting('RATE_LIMITS') ?? 'null') ?? RATE_LIMIT_DEFAULTS,
  /** Browser origins allowed to call the API (shared/cors.ts): `CORS_ORIGINS`, comma-separated; none by default. */
  corsOrigins: (): string[] => (setting('CORS_ORIGINS') ?? '').split(',').filter(Boolean),
  /**
   * The key that signs list cursors (shared/http/cursors.ts). Optional: without it a key is derived from
   * the table name, which is enough for tamper-evidence (see there).
   */
  cursorSecret: () => setting('CURSOR_SECRET'),
  insideLambda: () => setting('AWS_LAMBDA_FUNCTION_NAME') !== undefined,
  /**
   * The webhook due index's shard count when not the deployed one (webhook-deliveries/due.ts): locally only.
   * A deployment keeps one count: a delivery due in a shard past it would never be swept.
   */
  webhookDueShards: (): number | undefined => {
    const shards = setting('WEBHOOK_DUE_SHARDS');
    return shards === undefined ? undefined : Number(shards);
  },
};
