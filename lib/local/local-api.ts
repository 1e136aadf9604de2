import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join, resolve } from 'node:path';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { configure } from '../../shared/config.ts';
import { streamConsumer, webhookDelivery } from '../../shared/routes.ts';
import { type AnsweredRequest, createGateway, load } from './gateway.ts';
import { LOCAL_KMS_KEY_ARN } from './kms.ts';
import { LOCAL_DELIVERER_FUNCTION, provision, type Resources, startServices } from './services.ts';
import { startStreamPoller } from './stream-poller.ts';

/**
 * The whole local stack: DynamoDB Local and s3rver (unless endpoints are given), the table and buckets,
 * the environment the handlers read, and the gateway on 127.0.0.1. `npm start` and the HTTP tests use it.
 */
export interface LocalStackOptions {
  port: number;
  dataDir: string;
  /** Keep DynamoDB in memory (tests); `npm start` keeps data under dataDir. */
  inMemory?: boolean;
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /**
   * On a terminal: one readable line per request, the handlers' JSON log lines from WARN up (unless
   * LOG_LEVEL says otherwise) and no metric lines. Otherwise the handlers write what they write in Lambda.
   */
  interactive?: boolean;
}

export interface LocalConfig {
  api_url: string;
  dynamodb_endpoint: string;
  s3_endpoint: string;
  eventbridge_endpoint: string;
  event_bus_name: string;
  lambda_endpoint: string;
  kms_endpoint: string;
  table_name: string;
  private_bucket: string;
  public_bucket: string;
  public_base_url: string;
  demo_team_id?: number;
  demo_token?: string;
}

export const LOCAL_RESOURCES: Resources = {
  tableName: 'team-messaging',
  privateBucket: 'team-messaging-private',
  publicBucket: 'team-messaging-public',
};

/** The bus name the consumer puts events on (the stand-in keeps whatever it is given). */
const LOCAL_EVENT_BUS = 'team-messaging-events';

/**
 * The change events' pipeline, locally: the stream poller (Lambda's event source mapping) hands the table's
 * stream to the consumer the stack deploys (the route table's streamConsumer, the same code), which writes
 * the event log and puts events on the EventBridge stand-in. The process must be configured for handlers.
 */
export function startEventPipeline(
  config: Pick<LocalConfig, 'dynamodb_endpoint' | 'table_name'>,
  checkpointPath?: string,
) {
  return startStreamPoller({
    endpoint: config.dynamodb_endpoint,
    tableName: config.table_name,
    checkpointPath,
    consume: async (event) =>
      (await load<(event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>>(streamConsumer.handler))(
        event,
      ),
  });
}

/**
 * The webhook sweeper, locally: the scheduled function the stack deploys (every minute in AWS), run every
 * `intervalMs` so that a retry due in 5 s is sent about then. `npm start` runs it; the test run does not
 * (its tests drive the schedule with their own clock), so it is not part of startEventPipeline.
 */
export function startWebhookSweeper(intervalMs = 1000): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      try {
        await (await load<() => Promise<void>>(webhookDelivery.sweeper.handler))();
      } catch {
        // DynamoDB Local down: the next tick tries again, as the next scheduled run would.
      }
    });
  }, intervalMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

export const localConfigPath = (dataDir: string) => join(resolve(dataDir), 'local.json');
/** Where `npm start`'s stream poller keeps its place in the table's stream (stream-poller.ts). */
export const streamCheckpointPath = (dataDir: string) => join(resolve(dataDir), 'stream-checkpoint.json');

/** The settings a handler reads (shared/config.ts), pointed at local servers. */
export function handlerEnvironment(config: Omit<LocalConfig, 'api_url'>): Record<string, string> {
  return {
    TABLE_NAME: config.table_name,
    PRIVATE_BUCKET: config.private_bucket,
    PUBLIC_BUCKET: config.public_bucket,
    PUBLIC_BASE_URL: config.public_base_url,
    DYNAMODB_ENDPOINT: config.dynamodb_endpoint,
    S3_ENDPOINT: config.s3_endpoint,
    EVENTBRIDGE_ENDPOINT: config.eventbridge_endpoint,
    EVENT_BUS_NAME: config.event_bus_name,
    LAMBDA_ENDPOINT: config.lambda_endpoint,
    WEBHOOK_DELIVERER_FUNCTION: LOCAL_DELIVERER_FUNCTION,
    KMS_ENDPOINT: config.kms_endpoint,
    SIGNING_SECRETS_KEY: LOCAL_KMS_KEY_ARN,
    // 16 due shards, not AWS's 512: the local sweep runs every second (shared/data/webhook-deliveries/due.ts).
    WEBHOOK_DUE_SHARDS: '16',
    AWS_REGION: 'us-east-1',
  };
}

/** Where the local resources are, on these servers; s3rver itself serves the public library's URLs. */
export function servicesConfig(endpoints: {
  dynamodbEndpoint: string;
  s3Endpoint: string;
  eventBridgeEndpoint: string;
  lambdaEndpoint: string;
  kmsEndpoint: string;
}): Omit<LocalConfig, 'api_url'> {
  return {
    dynamodb_endpoint: endpoints.dynamodbEndpoint,
    s3_endpoint: endpoints.s3Endpoint,
    eventbridge_endpoint: endpoints.eventBridgeEndpoint,
    lambda_endpoint: endpoints.lambdaEndpoint,
    kms_endpoint: endpoints.kmsEndpoint,
    event_bus_name: LOCAL_EVENT_BUS,
    table_name: LOCAL_RESOURCES.tableName,
    private_bucket: LOCAL_RESOURCES.privateBucket,
    public_bucket: LOCAL_RESOURCES.publicBucket,
    public_base_url: `${endpoints.s3Endpoint}/${LOCAL_RESOURCES.publicBucket}`,
  };
}

export async function startLocalStack(options: LocalStackOptions) {
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const services = await startServices({
    dataDir: options.inMemory ? undefined : dataDir,
    scratchDir: dataDir,
    dynamodbEndpoint: options.dynamodbEndpoint,
    s3Endpoint: options.s3Endpoint,
    s3Port: recordedS3Port(await readLocalConfig(dataDir)),
  });
  let server: Server | undefined;
  let events: { stop(): Promise<void> } | undefined;
  let sweeper: { stop(): Promise<void> } | undefined;
  const stop = async () => {
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    await sweeper?.stop();
    await events?.stop();
    await services.stop();
  };
  try {
    await provision(services, LOCAL_RESOURCES);
    const base = servicesConfig(services);
    configure({
      ...process.env,
      ...handlerEnvironment(base),
      ...(options.interactive && { LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN', METRICS: 'off' }),
    });
    // The poller keeps its place where the table is kept; a table in memory starts empty each time.
    events = startEventPipeline(base, options.inMemory ? undefined : streamCheckpointPath(dataDir));
    sweeper = startWebhookSweeper();
    const gateway = createGateway(options.interactive ? printAnswered : undefined);
    server = gateway;
    await new Promise<void>((listening, failed) => {
      gateway.once('error', failed);
      gateway.listen(options.port, '127.0.0.1', () => listening());
    });
    const address = gateway.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const config: LocalConfig = { api_url: `http://127.0.0.1:${port}`, ...base };
    return { config, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The port of the s3rver local.json names, to take again: the public library's URLs (PUBLIC_BASE_URL) stay
 * the same from one start of a data directory to the next. Brands keep their own images as keys and
 * render them under whatever base is current (shared/domain/public-urls.ts), so a port taken meanwhile
 * (s3rver then takes another) breaks none of them; the stable port keeps URLs already handed out working.
 */
function recordedS3Port(previous: LocalConfig | undefined): number | undefined {
  try {
    const url = new URL(previous?.s3_endpoint ?? '');
    return url.hostname === '127.0.0.1' && url.port ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

function printAnswered({ method, path, status, ms, requestId }: AnsweredRequest): void {
  console.log(`${method} ${path} ${status} ${ms} ms ${requestId}`);
}

export async function readLocalConfig(dataDir: string): Promise<LocalConfig | undefined> {
  try {
    return JSON.parse(await readFile(localConfigPath(dataDir), 'utf8')) as LocalConfig;
  } catch {
    return undefined;
  }
}

export async function writeLocalConfig(dataDir: string, config: LocalConfig): Promise<void> {
  await writeFile(localConfigPath(dataDir), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}
