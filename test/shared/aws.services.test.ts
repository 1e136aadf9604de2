import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sdkClientOptions } from '../../shared/aws.ts';
import { config, configure } from '../../shared/config.ts';
import { TIMEOUTS } from '../../shared/limits.ts';
import { startSlowProxy } from '../support/slow-proxy.ts';
import { TEST_SDK_TIMEOUTS } from '../support/timeouts.ts';

/**
 * The handlers' AWS SDK clients (shared/aws.ts) take their timeouts from configuration: production's
 * 500 ms connect and 1,500 ms request (limits.ts) unless set, the test run's (support/timeouts.ts) in every
 * test process. A dependency slowed past production's request timeout, as DynamoDB Local and s3rver are on
 * two busy cores, is waited for in the tests, and still cut in production.
 */

/** Longer than production's request timeout, far shorter than the test run's. */
const SLOW_MS = TIMEOUTS.requestMs + 1_000;

const proxies: Array<Awaited<ReturnType<typeof startSlowProxy>>> = [];
let slowDynamo: string;
let slowS3: string;

beforeAll(async () => {
  const dynamo = await startSlowProxy(process.env.DYNAMODB_ENDPOINT as string, SLOW_MS);
  const s3 = await startSlowProxy(process.env.S3_ENDPOINT as string, SLOW_MS);
  proxies.push(dynamo, s3);
  [slowDynamo, slowS3] = [dynamo.endpoint, s3.endpoint];
});
afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
});
afterEach(() => configure({ ...process.env }));

/** One call of each real dependency, through its slow proxy, by clients built as the handlers build theirs. */
const clients = {
  DynamoDB: () =>
    new DynamoDBClient(sdkClientOptions(slowDynamo, 'local')).send(new ListTablesCommand({ Limit: 1 })),
  S3: () =>
    new S3Client({ ...sdkClientOptions(slowS3, 'S3RVER'), forcePathStyle: true }).send(
      new HeadBucketCommand({ Bucket: config.privateBucket() }),
    ),
};

describe('SDK client timeouts', () => {
  it('the test run configures timeouts only a hang reaches, in this process and the ones it spawns', () => {
    expect(process.env).toMatchObject(TEST_SDK_TIMEOUTS);
    expect(config.sdkRequestTimeoutMs()).toBe(Number(TEST_SDK_TIMEOUTS.SDK_REQUEST_TIMEOUT_MS));
    expect(config.sdkConnectTimeoutMs()).toBe(Number(TEST_SDK_TIMEOUTS.SDK_CONNECT_TIMEOUT_MS));
    expect(config.sdkRequestTimeoutMs()).toBeGreaterThan(10 * TIMEOUTS.requestMs);
  });

  it.each(Object.keys(clients) as Array<keyof typeof clients>)(
    '%s answering slower than production allows is waited for under the test configuration',
    async (name) => {
      const answer = await clients[name]();
      expect(answer.$metadata.httpStatusCode).toBe(200);
    },
  );

  it.each(Object.keys(clients) as Array<keyof typeof clients>)(
    '%s answering slower than production allows is cut under production configuration (1,500 ms, then retries)',
    async (name) => {
      configure({ ...process.env, SDK_CONNECT_TIMEOUT_MS: undefined, SDK_REQUEST_TIMEOUT_MS: undefined });
      expect(config.sdkRequestTimeoutMs()).toBe(TIMEOUTS.requestMs);
      expect(config.sdkConnectTimeoutMs()).toBe(TIMEOUTS.connectMs);
      const failure = await clients[name]().then(
        () => undefined,
        (error: Error & { $metadata?: { attempts?: number } }) => error,
      );
      expect(failure?.name).toBe('TimeoutError');
      expect(failure?.$metadata?.attempts).toBe(TIMEOUTS.attempts);
    },
  );
});
